import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const ALPHA_SERVICE = { source_host: 'github.com', owner: 'arbor-demo', name: 'alpha-service', branch: 'main', installation_id: 4242 };

describe('repositories', () => {
  let cp: ControlPlaneHarness;
  let admin: string;
  let alpha: { id: string; slug: string };
  let beta: { id: string; slug: string };

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = await cp.person('admin');
    alpha = (await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'alpha', name: 'Alpha' }).expect(201)).body;
    beta = (await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'beta', name: 'Beta' }).expect(201)).body;
  });

  afterAll(() => cp.close());

  const http = () => request(cp.url);
  const repositoriesOf = (projectId: string) => `/api/v1/projects/${projectId}/repositories`;
  const add = (projectId: string, body: Record<string, unknown>) => http().post(repositoriesOf(projectId)).auth(admin, { type: 'bearer' }).send(body);
  const outboxCount = async () => ((await cp.dataSource.query('select count(*)::int as n from outbox_events')) as { n: number }[])[0].n;
  const lastOutboxSlugs = async () =>
    ((await cp.dataSource.query('select payload from outbox_events order by id desc limit 1')) as { payload: { slugs: string[] } }[])[0].payload.slugs;
  const lastAudit = async (targetId: string) =>
    (
      (await cp.dataSource.query('select actor_kind, action, project_id, details from audit_log where target_id = $1 order by id desc limit 1', [targetId])) as {
        actor_kind: string;
        action: string;
        project_id: string;
        details: Record<string, unknown>;
      }[]
    )[0];

  describe('POST /api/v1/projects/{id}/repositories', () => {
    it('adds a repository: installation id stored as text, audited, and products hear of the project', async () => {
      const outboxBefore = await outboxCount();
      const response = await add(alpha.id, ALPHA_SERVICE).expect(201);

      expect(response.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        project_id: alpha.id,
        project_slug: 'alpha',
        source_host: 'github.com',
        owner: 'arbor-demo',
        name: 'alpha-service',
        full_name: 'github.com/arbor-demo/alpha-service',
        branch: 'main',
        installation_id: '4242',
      });
      expect(await cp.dataSource.query('select installation_id, branch from repositories where id = $1', [response.body.id])).toEqual([
        { installation_id: '4242', branch: 'main' },
      ]);
      expect(await outboxCount()).toBe(outboxBefore + 1);
      expect(await lastOutboxSlugs()).toEqual(['alpha']);
      expect(await lastAudit(response.body.id)).toMatchObject({
        actor_kind: 'person',
        action: 'repository.added',
        project_id: alpha.id,
        details: { full_name: 'github.com/arbor-demo/alpha-service', branch: 'main', installation_id: '4242' },
      });
    });

    it('takes the installation id as a string of digits and lower-cases the host', async () => {
      const response = await add(beta.id, { source_host: 'GitHub.com', owner: 'arbor-demo', name: 'beta-web', branch: 'develop', installation_id: '4243' }).expect(201);
      expect(response.body).toMatchObject({ source_host: 'github.com', full_name: 'github.com/arbor-demo/beta-web', installation_id: '4243', project_slug: 'beta' });
    });

    it('answers 409 repository_exists for the same host/owner/name in the project, whatever the case', async () => {
      const outboxBefore = await outboxCount();
      for (const body of [ALPHA_SERVICE, { ...ALPHA_SERVICE, owner: 'Arbor-Demo', name: 'Alpha-Service', branch: 'other' }]) {
        const response = await add(alpha.id, body).expect(409);
        expect(response.body.error.code).toBe('repository_exists');
      }
      expect(await outboxCount()).toBe(outboxBefore);
      expect(await cp.dataSource.query('select count(*)::int as n from repositories where project_id = $1', [alpha.id])).toEqual([{ n: 1 }]);
    });

    it('lets another project have the same repository', async () => {
      const { body: gamma } = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'gamma', name: 'Gamma' }).expect(201);
      await add(gamma.id, ALPHA_SERVICE).expect(201);
    });

    it.each([
      [{ source_host: 'not a host' }, ['source_host']],
      [{ source_host: 'localhost' }, ['source_host']],
      [{ source_host: 'https://github.com' }, ['source_host']],
      [{ owner: '-arbor' }, ['owner']],
      [{ owner: 'arbor--demo' }, ['owner']],
      [{ owner: 'a'.repeat(40) }, ['owner']],
      [{ owner: 'arbor/demo' }, ['owner']],
      [{ name: '..' }, ['name']],
      [{ name: 'alpha.git' }, ['name']],
      [{ name: 'alpha service' }, ['name']],
      [{ name: 'x'.repeat(101) }, ['name']],
      [{ branch: 'feature..x' }, ['branch']],
      [{ branch: 'with space' }, ['branch']],
      [{ branch: 'main.lock' }, ['branch']],
      [{ branch: '' }, ['branch']],
      [{ branch: 7 }, ['branch']],
      [{ installation_id: 'abc' }, ['installation_id']],
      [{ installation_id: 12.5 }, ['installation_id']],
      [{ installation_id: -1 }, ['installation_id']],
      [{ installation_id: '0042' }, ['installation_id']],
      [{ installation_id: null }, ['installation_id']],
      [{ project_id: UNKNOWN_ID }, ['project_id']],
    ])('answers 400 invalid_request naming the bad field of %j', async (override, fields) => {
      const response = await add(alpha.id, { ...ALPHA_SERVICE, name: 'valid-name', ...override }).expect(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(Object.keys(response.body.error.details.fields)).toEqual(fields);
    });

    it('names every missing field', async () => {
      const response = await add(alpha.id, {}).expect(400);
      expect(Object.keys(response.body.error.details.fields).sort()).toEqual(['branch', 'installation_id', 'name', 'owner', 'source_host']);
    });

    it('answers 404 project_not_found for an unknown project and 400 for a bad project id', async () => {
      expect((await add(UNKNOWN_ID, ALPHA_SERVICE).expect(404)).body.error.code).toBe('project_not_found');
      await add('alpha', ALPHA_SERVICE).expect(400);
    });
  });

  describe('GET /api/v1/projects/{id}/repositories', () => {
    it("lists the project's repositories", async () => {
      const response = await http().get(repositoriesOf(alpha.id)).auth(admin, { type: 'bearer' }).expect(200);
      expect(response.body).toEqual({ repositories: [expect.objectContaining({ project_id: alpha.id, full_name: 'github.com/arbor-demo/alpha-service' })], next_after_id: null });
    });

    it('pages them by full name with limit and after_id, and refuses a bad limit or cursor', async () => {
      await add(alpha.id, { ...ALPHA_SERVICE, name: 'alpha-tools' }).expect(201);
      const first = await http()
        .get(`${repositoriesOf(alpha.id)}?limit=1`)
        .auth(admin, { type: 'bearer' })
        .expect(200);
      expect(first.body.repositories.map((r: { name: string }) => r.name)).toEqual(['alpha-service']);
      const second = await http()
        .get(`${repositoriesOf(alpha.id)}?limit=1&after_id=${first.body.next_after_id}`)
        .auth(admin, { type: 'bearer' })
        .expect(200);
      expect(second.body).toEqual({ repositories: [expect.objectContaining({ name: 'alpha-tools' })], next_after_id: null });
      for (const query of ['limit=0', 'limit=501', 'after_id=nope']) {
        expect(
          (
            await http()
              .get(`${repositoriesOf(alpha.id)}?${query}`)
              .auth(admin, { type: 'bearer' })
              .expect(400)
          ).body.error.code,
        ).toBe('invalid_request');
      }
      await http()
        .delete(`${repositoriesOf(alpha.id)}/${second.body.repositories[0].id}`)
        .auth(admin, { type: 'bearer' })
        .expect(204);
    });

    it('answers 404 for an unknown project', async () => {
      expect((await http().get(repositoriesOf(UNKNOWN_ID)).auth(admin, { type: 'bearer' }).expect(404)).body.error.code).toBe('project_not_found');
    });
  });

  describe('PATCH /api/v1/projects/{id}/repositories/{repoId}', () => {
    let repository: { id: string };

    beforeAll(async () => {
      repository = (await add(alpha.id, { source_host: 'github.com', owner: 'arbor-demo', name: 'alpha-docs', branch: 'main', installation_id: '4242' }).expect(201)).body;
    });

    it('changes only the fields given; audited with before and after; products hear of the project', async () => {
      const outboxBefore = await outboxCount();
      const response = await http()
        .patch(`${repositoriesOf(alpha.id)}/${repository.id}`)
        .auth(admin, { type: 'bearer' })
        .send({ branch: 'release/2.1', installation_id: 5151 })
        .expect(200);
      expect(response.body).toMatchObject({ id: repository.id, full_name: 'github.com/arbor-demo/alpha-docs', branch: 'release/2.1', installation_id: '5151' });
      expect(await outboxCount()).toBe(outboxBefore + 1);
      expect(await lastOutboxSlugs()).toEqual(['alpha']);
      expect(await lastAudit(repository.id)).toMatchObject({
        action: 'repository.updated',
        details: { full_name: 'github.com/arbor-demo/alpha-docs', changes: { branch: { from: 'main', to: 'release/2.1' }, installation_id: { from: '4242', to: '5151' } } },
      });
    });

    it('writes nothing when nothing changes', async () => {
      const outboxBefore = await outboxCount();
      await http()
        .patch(`${repositoriesOf(alpha.id)}/${repository.id}`)
        .auth(admin, { type: 'bearer' })
        .send({ branch: 'release/2.1' })
        .expect(200);
      expect(await outboxCount()).toBe(outboxBefore);
    });

    it('renames within the project, and answers 409 when the new name is taken', async () => {
      await http()
        .patch(`${repositoriesOf(alpha.id)}/${repository.id}`)
        .auth(admin, { type: 'bearer' })
        .send({ name: 'Alpha-Docs' })
        .expect(200);
      const response = await http()
        .patch(`${repositoriesOf(alpha.id)}/${repository.id}`)
        .auth(admin, { type: 'bearer' })
        .send({ name: 'ALPHA-SERVICE' })
        .expect(409);
      expect(response.body.error.code).toBe('repository_exists');
      expect(await cp.dataSource.query('select name from repositories where id = $1', [repository.id])).toEqual([{ name: 'Alpha-Docs' }]);
    });

    it('answers 400 for null or bad fields, naming them', async () => {
      const response = await http()
        .patch(`${repositoriesOf(alpha.id)}/${repository.id}`)
        .auth(admin, { type: 'bearer' })
        .send({ branch: null, owner: '-x' })
        .expect(400);
      expect(Object.keys(response.body.error.details.fields).sort()).toEqual(['branch', 'owner']);
    });

    it('answers 404 repository_not_found for an unknown repository or one of another project, 400 for a bad id', async () => {
      for (const path of [`${repositoriesOf(alpha.id)}/${UNKNOWN_ID}`, `${repositoriesOf(beta.id)}/${repository.id}`]) {
        const response = await http().patch(path).auth(admin, { type: 'bearer' }).send({ branch: 'x' }).expect(404);
        expect(response.body.error.code).toBe('repository_not_found');
      }
      expect(
        (
          await http()
            .patch(`${repositoriesOf(UNKNOWN_ID)}/${repository.id}`)
            .auth(admin, { type: 'bearer' })
            .send({ branch: 'x' })
            .expect(404)
        ).body.error.code,
      ).toBe('project_not_found');
      const bad = await http()
        .patch(`${repositoriesOf(alpha.id)}/docs`)
        .auth(admin, { type: 'bearer' })
        .send({ branch: 'x' })
        .expect(400);
      expect(bad.body.error.details.fields).toHaveProperty('repoId');
    });
  });

  describe('DELETE /api/v1/projects/{id}/repositories/{repoId}', () => {
    it('removes the repository; audited; products hear of the project; a second delete is 404', async () => {
      const { body: repository } = await add(beta.id, { source_host: 'github.com', owner: 'arbor-demo', name: 'beta-old', branch: 'main', installation_id: 1 }).expect(201);
      const outboxBefore = await outboxCount();
      await http()
        .delete(`${repositoriesOf(beta.id)}/${repository.id}`)
        .auth(admin, { type: 'bearer' })
        .expect(204, '');
      expect(await cp.dataSource.query('select count(*)::int as n from repositories where id = $1', [repository.id])).toEqual([{ n: 0 }]);
      expect(await outboxCount()).toBe(outboxBefore + 1);
      expect(await lastOutboxSlugs()).toEqual(['beta']);
      expect(await lastAudit(repository.id)).toMatchObject({ action: 'repository.removed', details: { full_name: 'github.com/arbor-demo/beta-old' } });
      expect(
        (
          await http()
            .delete(`${repositoriesOf(beta.id)}/${repository.id}`)
            .auth(admin, { type: 'bearer' })
            .expect(404)
        ).body.error.code,
      ).toBe('repository_not_found');
    });
  });

  describe('GET /api/v1/repositories', () => {
    it('gives a machine client every repository of every project, by project slug then full name', async () => {
      const response = await http()
        .get('/api/v1/repositories')
        .auth(await cp.machine('ai-gateway-m2m'), { type: 'bearer' })
        .expect(200);
      expect(response.body.repositories.map((r: { project_slug: string; full_name: string }) => `${r.project_slug} ${r.full_name}`)).toEqual([
        'alpha github.com/arbor-demo/Alpha-Docs',
        'alpha github.com/arbor-demo/alpha-service',
        'beta github.com/arbor-demo/beta-web',
        'gamma github.com/arbor-demo/alpha-service',
      ]);
      expect(response.body.repositories[1]).toEqual({
        id: expect.any(String),
        project_id: alpha.id,
        project_slug: 'alpha',
        source_host: 'github.com',
        owner: 'arbor-demo',
        name: 'alpha-service',
        full_name: 'github.com/arbor-demo/alpha-service',
        branch: 'main',
        installation_id: '4242',
      });
    });

    it('pages every repository in the same order, so a product reads them all a page at a time', async () => {
      const machine = await cp.machine('ai-gateway-m2m');
      const all = (await http().get('/api/v1/repositories').auth(machine, { type: 'bearer' }).expect(200)).body;
      expect(all.next_after_id).toBeNull();
      const paged: string[] = [];
      let after: string | null = null;
      do {
        const query = `limit=3${after ? `&after_id=${after}` : ''}`;
        const page = (await http().get(`/api/v1/repositories?${query}`).auth(machine, { type: 'bearer' }).expect(200)).body as {
          repositories: { id: string }[];
          next_after_id: string | null;
        };
        expect(page.repositories.length).toBeLessThanOrEqual(3);
        paged.push(...page.repositories.map((r) => r.id));
        after = page.next_after_id;
      } while (after);
      expect(paged).toEqual(all.repositories.map((r: { id: string }) => r.id));
    });

    it('shows a renamed project under its new slug', async () => {
      const { body: delta } = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug: 'delta', name: 'Delta' }).expect(201);
      await add(delta.id, { ...ALPHA_SERVICE, name: 'delta-api' }).expect(201);
      await http().patch(`/api/v1/projects/${delta.id}`).auth(admin, { type: 'bearer' }).send({ slug: 'aardvark' }).expect(200);
      const response = await http()
        .get('/api/v1/repositories')
        .auth(await cp.machine('mcp-gateway-m2m'), { type: 'bearer' })
        .expect(200);
      expect(response.body.repositories[0]).toMatchObject({ project_id: delta.id, project_slug: 'aardvark', full_name: 'github.com/arbor-demo/delta-api' });
    });

    it('lets an administrator read it, refuses a person (403) and a token for another audience (401)', async () => {
      await http().get('/api/v1/repositories').auth(admin, { type: 'bearer' }).expect(200);
      const refused = await http()
        .get('/api/v1/repositories')
        .auth(await cp.person('alice'), { type: 'bearer' })
        .expect(403);
      expect(refused.body.error.code).toBe('forbidden');
      expect(refused.body.repositories).toBeUndefined();
      await http()
        .get('/api/v1/repositories')
        .auth(await cp.machine('control-plane-m2m'), { type: 'bearer' })
        .expect(401);
      await http().get('/api/v1/repositories').expect(401);
    });
  });

  describe('who may administer repositories', () => {
    it.each([
      ['get', () => repositoriesOf(alpha.id)],
      ['post', () => repositoriesOf(alpha.id)],
      ['patch', () => `${repositoriesOf(alpha.id)}/${UNKNOWN_ID}`],
      ['delete', () => `${repositoriesOf(alpha.id)}/${UNKNOWN_ID}`],
    ] as const)('%s: 403 for a person and for a machine client, 401 without a token', async (method, path) => {
      for (const token of [await cp.person('bob'), await cp.machine('ai-gateway-m2m')]) {
        const response = await http()[method](path()).auth(token, { type: 'bearer' }).send(ALPHA_SERVICE);
        expect(response.status).toBe(403);
      }
      expect((await http()[method](path()).send(ALPHA_SERVICE)).status).toBe(401);
    });
  });
});
