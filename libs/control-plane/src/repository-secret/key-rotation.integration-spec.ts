import { randomBytes } from 'node:crypto';
import { writeLoggedLines } from '@arbor/observability';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import request from 'supertest';
import { CapturedStdout, captureStdout } from '../testing/captured-stdout';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';
import { masterKeyId } from './master-key';

const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const ID_A = masterKeyId(Buffer.from(KEY_A, 'base64'));
const ID_B = masterKeyId(Buffer.from(KEY_B, 'base64'));
const ALPHA_TOKEN = 'ghs_demoAlphaToken0001';
const BETA_TOKEN = 'ghs_demoBetaToken0002';

/**
 * The procedure of docs/operations.md, on one database: a service started with key A stores
 * tokens; restarted with only key B it cannot read them but starts and says why; restarted with
 * B and A as a previous key it re-encrypts them under B; restarted with B alone it reads them.
 */
describe('master key rotation', () => {
  let database: TestDatabase;
  let running: ControlPlaneHarness | undefined;
  let stdout: CapturedStdout | undefined;
  const projects: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await running?.close();
    stdout?.restore();
    await database.drop();
  });

  /** Stops the running service, starts one on the same database, and returns what it logged while starting. */
  async function restart(keys: { CP_SECRETS_MASTER_KEY: string; CP_SECRETS_PREVIOUS_MASTER_KEYS?: string }): Promise<{ cp: ControlPlaneHarness; startLog: string }> {
    await running?.close();
    running = undefined;
    stdout?.restore();
    stdout = captureStdout();
    running = await startControlPlane({ CP_LOG: 'warn,repository-secret=info', ...keys }, { database });
    writeLoggedLines(running.service.app);
    return { cp: running, startLog: stdout.text() };
  }

  const rows = async (cp: ControlPlaneHarness) =>
    (await cp.dataSource.query('select p.slug, s.key_id, s.updated_at from repository_secrets s join projects p on p.id = s.project_id order by p.slug')) as {
      slug: string;
      key_id: string;
      updated_at: Date;
    }[];
  const readValue = async (cp: ControlPlaneHarness, slug: string) =>
    request(cp.url)
      .get(`/api/v1/projects/${projects[slug]}/repository-secret/value`)
      .auth(await cp.machine('ai-gateway-m2m'), { type: 'bearer' });

  it('stores tokens under key A', async () => {
    const { cp, startLog } = await restart({ CP_SECRETS_MASTER_KEY: KEY_A });
    expect(startLog).toContain(`repository tokens under master key ${ID_A}: 0 re-encrypted now, 0 remain under other keys`);
    const admin = await cp.person('admin');
    for (const [slug, token] of [
      ['alpha', ALPHA_TOKEN],
      ['beta', BETA_TOKEN],
    ]) {
      const { body } = await request(cp.url).post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug, name: slug }).expect(201);
      projects[slug] = body.id;
      await request(cp.url).put(`/api/v1/projects/${body.id}/repository-secret`).auth(admin, { type: 'bearer' }).send({ value: token }).expect(204);
    }
    expect((await rows(cp)).map((row) => [row.slug, row.key_id])).toEqual([
      ['alpha', ID_A],
      ['beta', ID_A],
    ]);
  });

  it('starts with only key B, names the missing key, and answers 500 master_key_missing', async () => {
    const { cp, startLog } = await restart({ CP_SECRETS_MASTER_KEY: KEY_B });
    expect(startLog).toContain(`repository tokens under master key ${ID_B}: 0 re-encrypted now, 2 remain under other keys`);
    expect(startLog).toContain(`not configured (key id: count): ${ID_A}: 2`);
    const response = await readValue(cp, 'alpha');
    expect(response.status).toBe(500);
    expect(response.body.error).toMatchObject({ code: 'master_key_missing', details: { key_id: ID_A } });
    expect((await rows(cp)).map((row) => row.key_id)).toEqual([ID_A, ID_A]);
    await request(cp.url).get('/healthz').expect(200);
  });

  it('with B current and A previous, re-encrypts every token under B at start, audited, values and updated_at unchanged', async () => {
    const before = await rows(running!);
    const outboxBefore = ((await running!.dataSource.query('select count(*)::int as n from outbox_events')) as { n: number }[])[0].n;
    const { cp, startLog } = await restart({ CP_SECRETS_MASTER_KEY: KEY_B, CP_SECRETS_PREVIOUS_MASTER_KEYS: KEY_A });

    expect(startLog).toContain(`repository tokens under master key ${ID_B}: 2 re-encrypted now, 0 remain under other keys`);
    expect(startLog).not.toContain('not configured');
    const after = await rows(cp);
    expect(after.map((row) => [row.slug, row.key_id])).toEqual([
      ['alpha', ID_B],
      ['beta', ID_B],
    ]);
    expect(after.map((row) => row.updated_at.getTime())).toEqual(before.map((row) => row.updated_at.getTime()));
    expect((await readValue(cp, 'alpha')).body.value).toBe(ALPHA_TOKEN);
    expect((await readValue(cp, 'beta')).body.value).toBe(BETA_TOKEN);

    const audit = (await cp.dataSource.query(
      "select actor_kind, actor_subject, project_id, details from audit_log where action = 'repository_secret.reencrypted' order by project_id",
    )) as {
      actor_kind: string;
      actor_subject: string;
      project_id: string;
      details: Record<string, unknown>;
    }[];
    expect(audit).toEqual(
      [projects['alpha'], projects['beta']].sort().map((projectId) => ({
        actor_kind: 'system',
        actor_subject: 'control-plane',
        project_id: projectId,
        details: { previous_key_id: ID_A, key_id: ID_B },
      })),
    );
    // The value did not change: products are not told.
    expect(((await cp.dataSource.query('select count(*)::int as n from outbox_events')) as { n: number }[])[0].n).toBe(outboxBefore);
    for (const token of [ALPHA_TOKEN, BETA_TOKEN]) expect(startLog).not.toContain(token);
  });

  it('then reads every token with key B alone, and re-encrypts nothing more', async () => {
    const { cp, startLog } = await restart({ CP_SECRETS_MASTER_KEY: KEY_B });
    expect(startLog).toContain(`repository tokens under master key ${ID_B}: 0 re-encrypted now, 0 remain under other keys`);
    expect((await readValue(cp, 'alpha')).body.value).toBe(ALPHA_TOKEN);
    expect((await readValue(cp, 'beta')).body.value).toBe(BETA_TOKEN);
  });
});
