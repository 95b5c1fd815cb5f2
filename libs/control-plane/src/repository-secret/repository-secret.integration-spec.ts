import { writeLoggedLines } from '@arbor/observability';
import request from 'supertest';
import { CapturedStdout, captureStdout } from '../testing/captured-stdout';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';
import { SecretSealer } from '@arbor/contract';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const ALPHA_TOKEN = 'ghs_demoAlphaToken0001';
const REPLACED_TOKEN = 'ghs_replacedAlphaToken0002';
const BETA_TOKEN = 'ghs_betaTokenNeverInPlaintext0003';
const TOKENS = [ALPHA_TOKEN, REPLACED_TOKEN, BETA_TOKEN];

interface AuditRow {
  occurred_at: Date;
  actor_kind: string;
  actor_subject: string;
  actor_client_id: string | null;
  action: string;
  project_id: string;
  details: Record<string, unknown>;
}

describe('the repository token', () => {
  let stdout: CapturedStdout;
  let cp: ControlPlaneHarness;
  let admin: string;
  let alpha: { id: string };
  let beta: { id: string };

  beforeAll(async () => {
    // Everything the service logs, at the most verbose level, is searched for the tokens at the end.
    stdout = captureStdout();
    cp = await startControlPlane({ CP_LOG: 'trace' });
    admin = await cp.person('admin');
    alpha = (await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'alpha', name: 'Alpha' }).expect(201)).body;
    beta = (await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'beta', name: 'Beta' }).expect(201)).body;
    await http()
      .post(`/api/v1/projects/${alpha.id}/repositories`)
      .auth(admin, { type: 'bearer' })
      .send({ source_host: 'github.com', owner: 'arbor-demo', name: 'alpha-service', branch: 'main', installation_id: 4242 })
      .expect(201);
  });

  afterAll(async () => {
    await cp?.close();
    stdout?.restore();
  });

  const http = () => request(cp.url);
  const secretOf = (projectId: string) => `/api/v1/projects/${projectId}/repository-secret`;
  const put = (projectId: string, value: unknown, token = admin) => http().put(secretOf(projectId)).auth(token, { type: 'bearer' }).send({ value });
  const readValue = async (projectId: string, token: string) =>
    http()
      .get(`${secretOf(projectId)}/value`)
      .auth(token, { type: 'bearer' });
  const storedRow = async (projectId: string) =>
    (
      (await cp.dataSource.query('select key_id, nonce, ciphertext, auth_tag, updated_at from repository_secrets where project_id = $1', [projectId])) as {
        key_id: string;
        nonce: Buffer;
        ciphertext: Buffer;
        auth_tag: Buffer;
        updated_at: Date;
      }[]
    )[0];
  const audit = async (action: string) => (await cp.dataSource.query('select * from audit_log where action = $1 order by id', [action])) as AuditRow[];
  const lastOutboxSlugs = async () =>
    ((await cp.dataSource.query('select payload from outbox_events order by id desc limit 1')) as { payload: { slugs: string[] } }[])[0].payload.slugs;
  const currentKeyId = () => cp.service.app.get(SecretSealer).currentKeyId;

  describe('PUT /api/v1/projects/{id}/repository-secret', () => {
    it('stores the token encrypted under the current key; audited; products hear of the project', async () => {
      await put(alpha.id, ALPHA_TOKEN).expect(204, '');

      const row = await storedRow(alpha.id);
      expect(row.key_id).toBe(currentKeyId());
      expect(row.nonce).toHaveLength(12);
      expect(row.auth_tag).toHaveLength(16);
      expect(row.ciphertext.toString('utf8')).not.toContain(ALPHA_TOKEN);
      expect(await lastOutboxSlugs()).toEqual(['alpha']);
      expect((await audit('repository_secret.replaced')).at(-1)).toMatchObject({
        actor_kind: 'person',
        project_id: alpha.id,
        details: { project_slug: 'alpha', key_id: currentKeyId(), previously_configured: false },
      });
    });

    it('replaces it with a fresh nonce', async () => {
      const before = await storedRow(alpha.id);
      await put(alpha.id, REPLACED_TOKEN).expect(204);
      const after = await storedRow(alpha.id);
      expect(after.nonce.equals(before.nonce)).toBe(false);
      expect(after.ciphertext.equals(before.ciphertext)).toBe(false);
      expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
      expect((await audit('repository_secret.replaced')).at(-1)?.details).toMatchObject({ previously_configured: true });
    });

    it.each<[string, Record<string, unknown>]>([
      ['empty', { value: '' }],
      ['longer than 4096 characters', { value: 'x'.repeat(4097) }],
      ['ended by a newline', { value: 'ghs_secretWithNewline\n' }],
      ['started by a space', { value: ' ghs_secretWithSpace' }],
      ['holding a control character', { value: 'ghs_secret\u0000WithNul' }],
      ['not a string', { value: 42 }],
      ['missing', {}],
    ])('answers 400 invalid_request for a value %s, never echoing it', async (_case, body) => {
      const response = await http().put(secretOf(alpha.id)).auth(admin, { type: 'bearer' }).send(body).expect(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(Object.keys(response.body.error.details.fields)).toEqual(['value']);
      expect(JSON.stringify(response.body)).not.toContain('ghs_secret');
    });

    it('accepts exactly 4096 characters', async () => {
      await put(beta.id, 'y'.repeat(4096)).expect(204);
      await put(beta.id, BETA_TOKEN).expect(204);
    });

    it('refuses a field other than value', async () => {
      const response = await http().put(secretOf(alpha.id)).auth(admin, { type: 'bearer' }).send({ value: 'ghs_x', key_id: 'mine' }).expect(400);
      expect(Object.keys(response.body.error.details.fields)).toEqual(['key_id']);
    });

    it('answers 404 for an unknown project, 400 for a bad id', async () => {
      expect((await put(UNKNOWN_ID, 'ghs_x').expect(404)).body.error.code).toBe('project_not_found');
      await put('alpha', 'ghs_x').expect(400);
    });

    it('refuses a person and a machine client (403)', async () => {
      await put(alpha.id, 'ghs_fromAlice', await cp.person('alice')).expect(403);
      await put(alpha.id, 'ghs_fromMachine', await cp.machine('ai-gateway-m2m')).expect(403);
      await http().put(secretOf(alpha.id)).send({ value: 'ghs_anonymous' }).expect(401);
    });
  });

  describe('GET /api/v1/projects/{id}/repository-secret/value', () => {
    it('gives a machine client the decrypted token, uncached, and audits the read with who and which project', async () => {
      const before = (await audit('repository_secret.read')).length;
      const response = await readValue(alpha.id, await cp.machine('ai-gateway-m2m'));

      expect(response.status).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toEqual({ project_id: alpha.id, project_slug: 'alpha', value: REPLACED_TOKEN, updated_at: expect.any(String) });
      const reads = await audit('repository_secret.read');
      expect(reads).toHaveLength(before + 1);
      expect(reads.at(-1)).toMatchObject({
        actor_kind: 'machine',
        actor_client_id: 'ai-gateway-m2m',
        actor_subject: expect.any(String),
        project_id: alpha.id,
        details: { project_slug: 'alpha' },
      });
      expect(Date.now() - reads.at(-1)!.occurred_at.getTime()).toBeLessThan(60_000);
    });

    it('audits every read, one entry each, by any reader', async () => {
      const before = (await audit('repository_secret.read')).length;
      for (let i = 0; i < 2; i += 1) expect((await readValue(alpha.id, await cp.machine('mcp-gateway-m2m'))).status).toBe(200);
      const asAdmin = await readValue(beta.id, admin);
      expect(asAdmin.status).toBe(200);
      expect(asAdmin.body.value).toBe(BETA_TOKEN);

      const reads = (await audit('repository_secret.read')).slice(before);
      expect(reads.map((r) => [r.actor_kind, r.actor_client_id, r.project_id])).toEqual([
        ['machine', 'mcp-gateway-m2m', alpha.id],
        ['machine', 'mcp-gateway-m2m', alpha.id],
        ['person', expect.any(String), beta.id],
      ]);
    });

    it('refuses a person (403) without reading or auditing', async () => {
      const before = (await audit('repository_secret.read')).length;
      const response = await readValue(alpha.id, await cp.person('alice'));
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
      expect(JSON.stringify(response.body)).not.toContain(REPLACED_TOKEN);
      expect(await audit('repository_secret.read')).toHaveLength(before);
      expect((await readValue(alpha.id, await cp.machine('control-plane-m2m'))).status).toBe(401);
    });

    it('answers 404 repository_secret_not_found when the project has none, project_not_found for an unknown one, 400 for a bad id', async () => {
      const machine = await cp.machine('ai-gateway-m2m');
      const { body: gamma } = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'gamma', name: 'Gamma' }).expect(201);
      expect((await readValue(gamma.id, machine)).body.error.code).toBe('repository_secret_not_found');
      expect((await readValue(UNKNOWN_ID, machine)).body.error.code).toBe('project_not_found');
      expect((await readValue('gamma', machine)).status).toBe(400);
    });

    it('answers 500 master_key_missing for a token under a key the service does not have', async () => {
      const { body: orphan } = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'orphan', name: 'Orphan' }).expect(201);
      await put(orphan.id, 'ghs_orphan').expect(204);
      await cp.dataSource.query("update repository_secrets set key_id = 'ffffffffffffffff' where project_id = $1", [orphan.id]);
      const response = await readValue(orphan.id, await cp.machine('ai-gateway-m2m'));
      expect(response.status).toBe(500);
      expect(response.body.error).toMatchObject({ code: 'master_key_missing', details: { key_id: 'ffffffffffffffff' } });
      expect(JSON.stringify(response.body)).not.toContain('ghs_orphan');
    });

    it('answers 500 repository_secret_unreadable for a ciphertext that does not authenticate', async () => {
      const { body: tampered } = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'tampered', name: 'Tampered' }).expect(201);
      await put(tampered.id, 'ghs_tampered').expect(204);
      // Moved onto another project: the project id is associated data, so it does not decrypt there.
      await cp.dataSource.query('update repository_secrets set ciphertext = (select ciphertext from repository_secrets where project_id = $2) where project_id = $1', [
        tampered.id,
        alpha.id,
      ]);
      const response = await readValue(tampered.id, admin);
      expect(response.status).toBe(500);
      expect(response.body.error.code).toBe('repository_secret_unreadable');
    });
  });

  describe('GET /api/v1/projects/{id}/repository-secret', () => {
    it('tells an administrator whether a token is set and since when, never the token', async () => {
      const configured = await http().get(secretOf(alpha.id)).auth(admin, { type: 'bearer' }).expect(200);
      expect(configured.body).toEqual({ configured: true, updated_at: expect.any(String), key_id: currentKeyId() });
      const { body: delta } = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'delta', name: 'Delta' }).expect(201);
      expect((await http().get(secretOf(delta.id)).auth(admin, { type: 'bearer' }).expect(200)).body).toEqual({ configured: false, updated_at: null, key_id: null });
      expect((await http().get(secretOf(UNKNOWN_ID)).auth(admin, { type: 'bearer' }).expect(404)).body.error.code).toBe('project_not_found');
    });

    it('refuses a machine client and a person', async () => {
      await http()
        .get(secretOf(alpha.id))
        .auth(await cp.machine('ai-gateway-m2m'), { type: 'bearer' })
        .expect(403);
      await http()
        .get(secretOf(alpha.id))
        .auth(await cp.person('bob'), { type: 'bearer' })
        .expect(403);
    });
  });

  describe('DELETE /api/v1/projects/{id}/repository-secret', () => {
    it('removes the token; audited; products hear of the project; then 404', async () => {
      const { body: epsilon } = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'epsilon', name: 'Epsilon' }).expect(201);
      await put(epsilon.id, 'ghs_epsilon').expect(204);
      await http()
        .delete(secretOf(epsilon.id))
        .auth(await cp.machine('ai-gateway-m2m'), { type: 'bearer' })
        .expect(403);
      await http()
        .delete(secretOf(epsilon.id))
        .auth(await cp.person('alice'), { type: 'bearer' })
        .expect(403);

      await http().delete(secretOf(epsilon.id)).auth(admin, { type: 'bearer' }).expect(204, '');

      expect(await storedRow(epsilon.id)).toBeUndefined();
      expect(await lastOutboxSlugs()).toEqual(['epsilon']);
      expect((await audit('repository_secret.removed')).at(-1)).toMatchObject({ project_id: epsilon.id, details: { project_slug: 'epsilon' } });
      expect((await http().delete(secretOf(epsilon.id)).auth(admin, { type: 'bearer' }).expect(404)).body.error.code).toBe('repository_secret_not_found');
      expect((await readValue(epsilon.id, admin)).status).toBe(404);
      expect((await http().delete(secretOf(UNKNOWN_ID)).auth(admin, { type: 'bearer' }).expect(404)).body.error.code).toBe('project_not_found');
    });
  });

  describe('the plaintext', () => {
    const forms = (token: string) => [token, Buffer.from(token).toString('hex'), Buffer.from(token).toString('base64')];

    it('is nowhere in the database: every row of every table, the audit log included', async () => {
      const tables = (await cp.dataSource.query("select tablename from pg_tables where schemaname = 'public' order by tablename")) as { tablename: string }[];
      expect(tables.map((t) => t.tablename)).toEqual(expect.arrayContaining(['audit_log', 'outbox_events', 'repository_secrets']));
      let dump = '';
      for (const { tablename } of tables) {
        const rows = (await cp.dataSource.query(`select t::text as row from "${tablename}" t`)) as { row: string }[];
        dump += rows.map((r) => r.row).join('\n');
      }
      // The dump is not empty: the encrypted rows and the audit entries are in it.
      expect(dump).toContain('repository_secret.read');
      expect(dump).toContain('\\x');
      const leaked = TOKENS.flatMap(forms).filter((form) => dump.toLowerCase().includes(form.toLowerCase()));
      expect(leaked).toEqual([]);
    });

    it('is in no line the service logged during this file, at level trace', async () => {
      writeLoggedLines(cp.service.app);
      const logged = stdout.text();
      // The capture works: the start and this file's reads and failures are in it.
      expect(logged).toContain('re-encrypted now');
      expect(logged).toContain('/repository-secret/value');
      expect(logged).toContain('does not decrypt under master key');
      const leaked = TOKENS.flatMap(forms).filter((form) => logged.includes(form));
      expect(leaked).toEqual([]);
    });
  });
});
