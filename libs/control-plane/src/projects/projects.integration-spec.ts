import request from 'supertest';
import { AccessVersion } from '../access/access-version';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('projects administration', () => {
  let cp: ControlPlaneHarness;
  let admin: string;

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = await cp.person('admin');
  });

  afterAll(() => cp.close());

  const http = () => request(cp.url);
  const outboxSlugs = async (): Promise<string[][]> =>
    ((await cp.dataSource.query("select payload from outbox_events where topic = 'projects.changed' order by id")) as { payload: { slugs: string[] } }[]).map(
      (row) => row.payload.slugs,
    );
  const auditOf = async (projectId: string) =>
    (await cp.dataSource.query('select actor_kind, actor_subject, action, details from audit_log where project_id = $1 order by id', [projectId])) as {
      actor_kind: string;
      actor_subject: string;
      action: string;
      details: Record<string, unknown>;
    }[];
  const accessVersion = () => cp.service.app.get(AccessVersion).current;
  const create = (slug: string, name = slug.toUpperCase()) => http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug, name });

  describe('POST /api/v1/projects', () => {
    it('creates a project, with its audit entry and outbox row, and moves the access version', async () => {
      const version = accessVersion();
      const outboxBefore = (await outboxSlugs()).length;

      const response = await create('alpha', '  Alpha  ').expect(201);

      expect(response.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        slug: 'alpha',
        name: 'Alpha',
        repository_count: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(new Date(response.body.created_at).getTime()).not.toBeNaN();
      expect(await cp.dataSource.query('select slug, name from projects where id = $1', [response.body.id])).toEqual([{ slug: 'alpha', name: 'Alpha' }]);
      expect((await outboxSlugs()).slice(outboxBefore)).toEqual([['alpha']]);
      const [entry] = await auditOf(response.body.id);
      expect(entry).toMatchObject({ actor_kind: 'person', action: 'project.created', details: { slug: 'alpha', name: 'Alpha' } });
      expect(accessVersion()).toBeGreaterThan(version);
    });

    it('answers 409 project_slug_taken for a slug in use, writing nothing', async () => {
      const outboxBefore = (await outboxSlugs()).length;
      const response = await create('alpha', 'Another alpha').expect(409);
      expect(response.body.error).toMatchObject({ code: 'project_slug_taken', details: { slug: 'alpha' } });
      expect((await outboxSlugs()).length).toBe(outboxBefore);
      expect(await cp.dataSource.query("select count(*)::int as n from projects where slug = 'alpha'")).toEqual([{ n: 1 }]);
    });

    it('lets exactly one of several concurrent creates of a slug win; the others get 409', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create('race', `Race ${i}`)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      for (const answer of answers.filter((a) => a.status === 409)) expect(answer.body.error.code).toBe('project_slug_taken');
      expect(await cp.dataSource.query("select count(*)::int as n from projects where slug = 'race'")).toEqual([{ n: 1 }]);
      expect((await outboxSlugs()).filter((slugs) => slugs.includes('race'))).toHaveLength(1);
    });

    it.each([
      [{ slug: 'Alpha2', name: 'x' }, ['slug']],
      [{ slug: '-alpha', name: 'x' }, ['slug']],
      [{ slug: 'alpha-', name: 'x' }, ['slug']],
      [{ slug: 'al_pha', name: 'x' }, ['slug']],
      [{ slug: 'a'.repeat(65), name: 'x' }, ['slug']],
      [{ slug: '', name: 'x' }, ['slug']],
      [{ slug: 42, name: 'x' }, ['slug']],
      [{ name: 'x' }, ['slug']],
      [{ slug: 'ok' }, ['name']],
      [{ slug: 'ok', name: '   ' }, ['name']],
      [{ slug: 'ok', name: 'x'.repeat(201) }, ['name']],
      [{ slug: 'ok', name: 'x', id: UNKNOWN_ID }, ['id']],
    ])('answers 400 invalid_request naming the bad fields of %j', async (body, fields) => {
      const response = await http().post('/api/v1/projects').auth(admin, { type: 'bearer' }).send(body).expect(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(Object.keys(response.body.error.details.fields).sort()).toEqual(fields);
    });

    it('accepts a 64-character slug and a one-character slug', async () => {
      await create('b'.repeat(64), 'Long').expect(201);
      await create('c', 'Short').expect(201);
    });
  });

  describe('GET /api/v1/projects and /api/v1/projects/{id}', () => {
    it('lists every project by slug, with its repository count', async () => {
      const { body: beta } = await create('beta', 'Beta').expect(201);
      await cp.dataSource.query(
        "insert into repositories (project_id, source_host, owner, name, branch, installation_id) values ($1, 'github.com', 'arbor-demo', 'beta-web', 'develop', '4243')",
        [beta.id],
      );
      const response = await http().get('/api/v1/projects').auth(admin, { type: 'bearer' }).expect(200);
      const slugs = (response.body.projects as { slug: string }[]).map((p) => p.slug);
      expect(slugs).toEqual([...slugs].sort());
      expect(slugs).toEqual(expect.arrayContaining(['alpha', 'beta', 'race']));
      expect(response.body.projects.find((p: { slug: string }) => p.slug === 'beta')).toMatchObject({ id: beta.id, name: 'Beta', repository_count: 1 });
    });

    it('pages the list by slug with limit and after_slug', async () => {
      const all = (await http().get('/api/v1/projects').auth(admin, { type: 'bearer' }).expect(200)).body as { projects: { slug: string }[]; next_after_slug: null };
      expect(all.next_after_slug).toBeNull();
      const first = await http().get('/api/v1/projects?limit=1').auth(admin, { type: 'bearer' }).expect(200);
      expect(first.body.projects.map((p: { slug: string }) => p.slug)).toEqual([all.projects[0].slug]);
      expect(first.body.next_after_slug).toBe(all.projects[0].slug);
      const rest = await http().get(`/api/v1/projects?after_slug=${first.body.next_after_slug}`).auth(admin, { type: 'bearer' }).expect(200);
      expect(rest.body.projects.map((p: { slug: string }) => p.slug)).toEqual(all.projects.slice(1).map((p) => p.slug));
      await http().get('/api/v1/projects?limit=0').auth(admin, { type: 'bearer' }).expect(400);
      await http().get('/api/v1/projects?after_slug=Not%20a%20slug').auth(admin, { type: 'bearer' }).expect(400);
    });

    it('reads one project by id', async () => {
      const { body: created } = await create('gamma', 'Gamma').expect(201);
      const response = await http().get(`/api/v1/projects/${created.id}`).auth(admin, { type: 'bearer' }).expect(200);
      expect(response.body).toEqual(created);
    });

    it('answers 404 project_not_found for an unknown id and 400 for an id that is not a UUID', async () => {
      const missing = await http().get(`/api/v1/projects/${UNKNOWN_ID}`).auth(admin, { type: 'bearer' }).expect(404);
      expect(missing.body.error.code).toBe('project_not_found');
      const bad = await http().get('/api/v1/projects/alpha').auth(admin, { type: 'bearer' }).expect(400);
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', details: { fields: { id: expect.any(Array) } } });
    });
  });

  describe('PATCH /api/v1/projects/{id}', () => {
    it('changes the name: audited as project.updated, products hear of the slug, the access version stays', async () => {
      const { body: project } = await create('delta', 'Delta').expect(201);
      const version = accessVersion();
      const outboxBefore = (await outboxSlugs()).length;

      const response = await http().patch(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).send({ name: 'Delta Force' }).expect(200);

      expect(response.body).toMatchObject({ id: project.id, slug: 'delta', name: 'Delta Force' });
      expect(new Date(response.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(project.updated_at).getTime());
      expect((await outboxSlugs()).slice(outboxBefore)).toEqual([['delta']]);
      expect((await auditOf(project.id)).at(-1)).toMatchObject({ action: 'project.updated', details: { slug: 'delta', name: 'Delta Force', previous_name: 'Delta' } });
      expect(accessVersion()).toBe(version);
    });

    it('renames: audited as project.renamed, the outbox row names both slugs, the access version moves', async () => {
      const { body: project } = await create('epsilon', 'Epsilon').expect(201);
      const version = accessVersion();
      const outboxBefore = (await outboxSlugs()).length;

      const response = await http().patch(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).send({ slug: 'epsilon-2' }).expect(200);

      expect(response.body).toMatchObject({ id: project.id, slug: 'epsilon-2', name: 'Epsilon' });
      expect((await outboxSlugs()).slice(outboxBefore)).toEqual([['epsilon', 'epsilon-2']]);
      expect((await auditOf(project.id)).at(-1)).toMatchObject({ action: 'project.renamed', details: { slug: 'epsilon-2', previous_slug: 'epsilon' } });
      expect(accessVersion()).toBeGreaterThan(version);
    });

    it('writes nothing when nothing changes', async () => {
      const { body: project } = await create('zeta', 'Zeta').expect(201);
      const outboxBefore = (await outboxSlugs()).length;
      const response = await http().patch(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).send({ slug: 'zeta', name: 'Zeta' }).expect(200);
      expect(response.body).toEqual(project);
      await http().patch(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).send({}).expect(200);
      expect((await outboxSlugs()).length).toBe(outboxBefore);
      expect((await auditOf(project.id)).map((entry) => entry.action)).toEqual(['project.created']);
    });

    it('answers 409 project_slug_taken when renaming onto another slug', async () => {
      const { body: project } = await create('eta', 'Eta').expect(201);
      const response = await http().patch(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).send({ slug: 'alpha' }).expect(409);
      expect(response.body.error.code).toBe('project_slug_taken');
      expect(await cp.dataSource.query('select slug from projects where id = $1', [project.id])).toEqual([{ slug: 'eta' }]);
    });

    it.each([
      [{ slug: 'Not_A_Slug' }, ['slug']],
      [{ slug: null }, ['slug']],
      [{ name: null }, ['name']],
      [{ name: '' }, ['name']],
      [{ repository_count: 3 }, ['repository_count']],
    ])('answers 400 invalid_request for %j', async (body, fields) => {
      const { body: projects } = await http().get('/api/v1/projects').auth(admin, { type: 'bearer' }).expect(200);
      const response = await http().patch(`/api/v1/projects/${projects.projects[0].id}`).auth(admin, { type: 'bearer' }).send(body).expect(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(Object.keys(response.body.error.details.fields)).toEqual(fields);
    });

    it('answers 404 for an unknown project and 400 for a bad id', async () => {
      expect((await http().patch(`/api/v1/projects/${UNKNOWN_ID}`).auth(admin, { type: 'bearer' }).send({ name: 'x' }).expect(404)).body.error.code).toBe('project_not_found');
      await http().patch('/api/v1/projects/not-a-uuid').auth(admin, { type: 'bearer' }).send({ name: 'x' }).expect(400);
    });
  });

  describe('DELETE /api/v1/projects/{id}', () => {
    it('deletes the project with its repositories, token and grants; audited, in the outbox, the access version moves', async () => {
      const { body: project } = await create('theta', 'Theta').expect(201);
      await cp.dataSource.query(
        "insert into repositories (project_id, source_host, owner, name, branch, installation_id) values ($1, 'github.com', 'arbor-demo', 'theta', 'main', '1')",
        [project.id],
      );
      await cp.dataSource.query("insert into repository_secrets (project_id, key_id, nonce, ciphertext, auth_tag) values ($1, 'k', '\\x00', '\\x00', '\\x00')", [project.id]);
      const [user] = (await cp.dataSource.query("insert into users (email, display_name) values ('theta@arbor.local', 'Theta') returning id")) as { id: string }[];
      await cp.dataSource.query("insert into permission_grants (user_id, project_id, permission_key) values ($1, $2, 'ai-gateway.viewer')", [user.id, project.id]);
      const version = accessVersion();
      const outboxBefore = (await outboxSlugs()).length;

      await http().delete(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).expect(204, '');

      for (const table of ['projects where id', 'repositories where project_id', 'repository_secrets where project_id', 'permission_grants where project_id']) {
        expect(await cp.dataSource.query(`select count(*)::int as n from ${table} = $1`, [project.id])).toEqual([{ n: 0 }]);
      }
      expect((await outboxSlugs()).slice(outboxBefore)).toEqual([['theta']]);
      expect((await auditOf(project.id)).at(-1)).toMatchObject({ action: 'project.deleted', details: { slug: 'theta', name: 'Theta' } });
      expect(accessVersion()).toBeGreaterThan(version);
      await http().get(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).expect(404);
      expect((await http().delete(`/api/v1/projects/${project.id}`).auth(admin, { type: 'bearer' }).expect(404)).body.error.code).toBe('project_not_found');
    });

    it('answers 400 for an id that is not a UUID', async () => {
      await http().delete('/api/v1/projects/theta').auth(admin, { type: 'bearer' }).expect(400);
    });
  });

  describe('who may administer projects', () => {
    it.each([
      ['post', '/api/v1/projects'],
      ['patch', `/api/v1/projects/${UNKNOWN_ID}`],
      ['delete', `/api/v1/projects/${UNKNOWN_ID}`],
    ] as const)('%s %s: 401 without a token, 403 for a person and for a machine client', async (method, path) => {
      expect((await http()[method](path).send({ slug: 'nope', name: 'Nope' })).status).toBe(401);
      const client = http();
      const asAlice = await client[method](path)
        .auth(await cp.person('alice'), { type: 'bearer' })
        .send({ slug: 'nope', name: 'Nope' });
      expect(asAlice.status).toBe(403);
      expect(asAlice.body.error.code).toBe('forbidden');
      const asMachine = await client[method](path)
        .auth(await cp.machine('ai-gateway-m2m'), { type: 'bearer' })
        .send({ slug: 'nope', name: 'Nope' });
      expect(asMachine.status).toBe(403);
      expect(await cp.dataSource.query("select count(*)::int as n from projects where slug = 'nope'")).toEqual([{ n: 0 }]);
    });
  });

  describe('what products read of projects', () => {
    it('lets a machine client list projects, find one by slug and read one by id; persons who are not administrators get 403', async () => {
      const { body: lambda } = await create('lambda', 'Lambda').expect(201);
      const machine = await cp.machine('ai-gateway-m2m');
      const found = await http().get('/api/v1/projects?slug=lambda').auth(machine, { type: 'bearer' }).expect(200);
      expect(found.body.projects).toEqual([expect.objectContaining({ id: lambda.id, slug: 'lambda', name: 'Lambda' })]);
      expect((await http().get('/api/v1/projects?slug=no-such').auth(machine, { type: 'bearer' }).expect(200)).body.projects).toEqual([]);
      expect((await http().get(`/api/v1/projects/${lambda.id}`).auth(machine, { type: 'bearer' }).expect(200)).body.slug).toBe('lambda');
      expect((await http().get(`/api/v1/projects/${UNKNOWN_ID}`).auth(machine, { type: 'bearer' }).expect(404)).body.error.code).toBe('project_not_found');
      expect(
        (
          await http()
            .get('/api/v1/projects')
            .auth(await cp.person('alice'), { type: 'bearer' })
        ).status,
      ).toBe(403);
      expect((await http().get('/api/v1/projects')).status).toBe(401);
    });
  });

  describe('a project change and its outbox row', () => {
    // Makes every outbox insert fail, as a full disk or a broken outbox table would.
    const breakOutbox = () =>
      cp.dataSource.query(`
        create function refuse_outbox() returns trigger language plpgsql as $$ begin raise exception 'outbox refused for the test'; end $$;
        create trigger refuse_outbox before insert on outbox_events for each row execute function refuse_outbox();`);
    const repairOutbox = () => cp.dataSource.query('drop trigger refuse_outbox on outbox_events; drop function refuse_outbox();');

    it('roll back together when the outbox write fails, and commit together once it works', async () => {
      const { body: existing } = await create('iota', 'Iota').expect(201);
      const version = accessVersion();
      const outboxBefore = (await outboxSlugs()).length;
      await breakOutbox();
      try {
        expect((await create('kappa', 'Kappa')).status).toBe(500);
        expect((await http().patch(`/api/v1/projects/${existing.id}`).auth(admin, { type: 'bearer' }).send({ slug: 'iota-2' })).status).toBe(500);
        expect((await http().delete(`/api/v1/projects/${existing.id}`).auth(admin, { type: 'bearer' })).status).toBe(500);

        expect(await cp.dataSource.query("select count(*)::int as n from projects where slug = 'kappa'")).toEqual([{ n: 0 }]);
        expect(await cp.dataSource.query('select slug from projects where id = $1', [existing.id])).toEqual([{ slug: 'iota' }]);
        expect(
          await cp.dataSource.query("select count(*)::int as n from audit_log where details->>'slug' in ('kappa', 'iota-2') or action = 'project.deleted' and project_id = $1", [
            existing.id,
          ]),
        ).toEqual([{ n: 0 }]);
        expect(accessVersion()).toBe(version);
      } finally {
        await repairOutbox();
      }
      expect((await outboxSlugs()).length).toBe(outboxBefore);

      const { body: kappa } = await create('kappa', 'Kappa').expect(201);
      await http().patch(`/api/v1/projects/${existing.id}`).auth(admin, { type: 'bearer' }).send({ slug: 'iota-2' }).expect(200);
      expect(await cp.dataSource.query('select slug from projects where id in ($1, $2) order by slug', [existing.id, kappa.id])).toEqual([{ slug: 'iota-2' }, { slug: 'kappa' }]);
      expect((await outboxSlugs()).slice(outboxBefore)).toEqual([['kappa'], ['iota', 'iota-2']]);
    });
  });
});
