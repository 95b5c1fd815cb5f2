import request from 'supertest';
import { AccessVersion } from '../access/access-version';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

// alice's fixed subject in deploy/keycloak/realm-export.json.
const ALICE_SUBJECT = '421394a7-b2e8-4f4a-9396-3b751542a6ba';

describe('the shell endpoints /api/v1/me', () => {
  let cp: ControlPlaneHarness;
  const projects: Record<'alpha' | 'beta', string> = { alpha: '', beta: '' };

  const as = (token: string) => ({
    get: (path: string) => request(cp.url).get(path).auth(token, { type: 'bearer' }),
    put: (path: string, body: object) => request(cp.url).put(path).auth(token, { type: 'bearer' }).send(body),
    patch: (path: string, body: object) => request(cp.url).patch(path).auth(token, { type: 'bearer' }).send(body),
  });

  /** Grants written straight into the table, then the access version moved as the grants endpoint does. */
  const grant = async (userId: string, key: string, project?: 'alpha' | 'beta') => {
    await cp.dataSource.query('insert into permission_grants (user_id, project_id, permission_key) values ($1, $2, $3)', [userId, project ? projects[project] : null, key]);
    cp.service.app.get(AccessVersion).bump();
  };

  beforeAll(async () => {
    cp = await startControlPlane();
    for (const slug of ['alpha', 'beta'] as const) {
      const [row] = (await cp.dataSource.query('insert into projects (slug, name) values ($1, $2) returning id', [slug, slug.toUpperCase()])) as { id: string }[];
      projects[slug] = row.id;
    }
  });

  afterAll(() => cp.close());

  it('provisions a person on their first call and answers their profile', async () => {
    expect(await cp.dataSource.query('select id from users where subject = $1', [ALICE_SUBJECT])).toEqual([]);
    const alice = as(await cp.person('alice'));
    const first = await alice.get('/api/v1/me');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      subject: ALICE_SUBJECT,
      email: 'alice@arbor.local',
      display_name: expect.stringMatching(/\S/),
      admin: false,
      disabled: false,
      theme: 'system',
      default_project: null,
      permissions: { workspace: [], projects: {} },
    });
    expect(await cp.dataSource.query('select id, email from users where subject = $1', [ALICE_SUBJECT])).toEqual([{ id: first.body.id, email: 'alice@arbor.local' }]);
    expect((await alice.get('/api/v1/me')).body.id).toBe(first.body.id);
  });

  it('says whether the person is an administrator (the realm role)', async () => {
    expect((await as(await cp.person('admin')).get('/api/v1/me')).body.admin).toBe(true);
  });

  it('includes the effective permissions in the grouped shape', async () => {
    const aliceId = await cp.userId('alice');
    await grant(aliceId, 'ai-gateway');
    await grant(aliceId, 'ai-gateway.operator', 'alpha');
    const me = await as(await cp.person('alice')).get('/api/v1/me');
    expect(me.body.permissions).toEqual({ workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
  });

  it('is for persons: no token 401, a machine client 403 person_only', async () => {
    expect((await request(cp.url).get('/api/v1/me')).status).toBe(401);
    const machine = as(await cp.machine('ai-gateway-m2m'));
    for (const response of [
      await machine.get('/api/v1/me'),
      await machine.put('/api/v1/me/theme', { theme: 'dark' }),
      await machine.put('/api/v1/me/default-project', { project_id: projects.alpha }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('person_only');
    }
    // Nothing provisioned for the machine's service account (its fixed subject in the realm export).
    expect(await cp.dataSource.query("select id from users where subject = 'f7157688-8844-4a9c-8162-49480ecdb408'")).toEqual([]);
  });

  it('sets the theme (light, dark or system) and audits the change', async () => {
    const alice = as(await cp.person('alice'));
    const aliceId = await cp.userId('alice');
    const dark = await alice.put('/api/v1/me/theme', { theme: 'dark' });
    expect(dark.status).toBe(200);
    expect(dark.body).toMatchObject({ id: aliceId, theme: 'dark' });
    expect((await alice.get('/api/v1/me')).body.theme).toBe('dark');
    expect(await cp.dataSource.query('select theme from users where id = $1', [aliceId])).toEqual([{ theme: 'dark' }]);
    expect(await cp.dataSource.query("select actor_subject, target_id, details from audit_log where action = 'user.theme_changed'")).toEqual([
      { actor_subject: ALICE_SUBJECT, target_id: aliceId, details: { from: 'system', to: 'dark' } },
    ]);

    for (const body of [{ theme: 'neon' }, {}, { theme: 'dark', extra: 1 }]) {
      const refused = await alice.put('/api/v1/me/theme', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
    }
    expect((await alice.put('/api/v1/me/theme', { theme: 'neon' })).body.error.details.fields).toHaveProperty('theme');
    expect((await alice.put('/api/v1/me/theme', { theme: 'light' })).body.theme).toBe('light');
  });

  it('sets the default project to one the person holds a permission on, and clears it with null', async () => {
    const alice = as(await cp.person('alice'));
    const aliceId = await cp.userId('alice');
    const set = await alice.put('/api/v1/me/default-project', { project_id: projects.alpha });
    expect(set.status).toBe(200);
    expect(set.body.default_project).toEqual({ id: projects.alpha, slug: 'alpha', name: 'ALPHA' });
    expect((await alice.get('/api/v1/me')).body.default_project).toEqual({ id: projects.alpha, slug: 'alpha', name: 'ALPHA' });
    expect(await cp.dataSource.query("select target_id, project_id from audit_log where action = 'user.default_project_changed'")).toEqual([
      { target_id: aliceId, project_id: projects.alpha },
    ]);

    const cleared = await alice.put('/api/v1/me/default-project', { project_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.default_project).toBeNull();
    expect(await cp.dataSource.query('select default_project_id from users where id = $1', [aliceId])).toEqual([{ default_project_id: null }]);
  });

  it('refuses a project the person may not see (403), an unknown one (404) and a malformed body (400)', async () => {
    const alice = as(await cp.person('alice'));
    // Workspace keys alone do not make beta visible: alice holds nothing on beta itself.
    const hidden = await alice.put('/api/v1/me/default-project', { project_id: projects.beta });
    expect(hidden.status).toBe(403);
    expect(hidden.body.error).toMatchObject({ code: 'project_not_visible', details: { project_id: projects.beta } });

    const unknown = await alice.put('/api/v1/me/default-project', { project_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('project_not_found');

    for (const body of [{}, { project_id: 'alpha' }, { slug: 'alpha' }]) {
      const refused = await alice.put('/api/v1/me/default-project', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
    }
    expect((await alice.get('/api/v1/me')).body.default_project).toBeNull();
  });

  it('lists the projects a person may see, with their keys there: a member only theirs, an administrator every one', async () => {
    const alice = await as(await cp.person('alice')).get('/api/v1/me/projects');
    expect(alice.status).toBe(200);
    expect(alice.body).toEqual({ projects: [{ id: projects.alpha, slug: 'alpha', name: 'ALPHA', permissions: ['ai-gateway.operator'] }] });
    const admin = await as(await cp.person('admin')).get('/api/v1/me/projects');
    expect((admin.body.projects as { slug: string }[]).map((project) => project.slug)).toEqual(['alpha', 'beta']);
    expect((await as(await cp.machine()).get('/api/v1/me/projects')).status).toBe(403);
  });

  it('lets an administrator choose any project', async () => {
    const admin = as(await cp.person('admin'));
    const set = await admin.put('/api/v1/me/default-project', { project_id: projects.beta });
    expect(set.status).toBe(200);
    expect(set.body.default_project).toMatchObject({ slug: 'beta' });
  });

  it('shows a holder of a workspace-level role key every project, as the products honour it on each, and lets them choose any', async () => {
    const carol = as(await cp.person('carol'));
    const carolId = await cp.userId('carol');
    await grant(carolId, 'mcp-gateway');
    await grant(carolId, 'mcp-gateway.viewer');
    await grant(carolId, 'mcp-gateway.operator', 'alpha');
    const listed = await carol.get('/api/v1/me/projects');
    expect(listed.status).toBe(200);
    // Each project with the keys granted on it; the workspace keys stay in the profile only.
    expect(listed.body).toEqual({
      projects: [
        { id: projects.alpha, slug: 'alpha', name: 'ALPHA', permissions: ['mcp-gateway.operator'] },
        { id: projects.beta, slug: 'beta', name: 'BETA', permissions: [] },
      ],
    });
    const set = await carol.put('/api/v1/me/default-project', { project_id: projects.beta });
    expect(set.status).toBe(200);
    expect(set.body.default_project).toEqual({ id: projects.beta, slug: 'beta', name: 'BETA' });
    expect((await carol.get('/api/v1/me')).body.default_project).toMatchObject({ slug: 'beta' });

    // Without the workspace role, beta is out of sight again.
    await cp.dataSource.query("delete from permission_grants where user_id = $1 and permission_key = 'mcp-gateway.viewer'", [carolId]);
    cp.service.app.get(AccessVersion).bump();
    expect(((await carol.get('/api/v1/me/projects')).body.projects as { slug: string }[]).map((project) => project.slug)).toEqual(['alpha']);
    expect((await carol.get('/api/v1/me')).body.default_project).toBeNull();
  });

  it('stops showing a default project the person may no longer see', async () => {
    const alice = as(await cp.person('alice'));
    const aliceId = await cp.userId('alice');
    await grant(aliceId, 'ai-gateway.viewer', 'beta');
    expect((await alice.put('/api/v1/me/default-project', { project_id: projects.beta })).body.default_project).toMatchObject({ slug: 'beta' });

    await cp.dataSource.query('delete from permission_grants where user_id = $1 and project_id = $2', [aliceId, projects.beta]);
    cp.service.app.get(AccessVersion).bump();
    expect((await alice.get('/api/v1/me')).body.default_project).toBeNull();
  });

  describe('for a disabled person', () => {
    let bob: ReturnType<typeof as>;
    let bobId: string;

    beforeAll(async () => {
      bob = as(await cp.person('bob'));
      bobId = await cp.userId('bob');
      await grant(bobId, 'ai-gateway');
      await grant(bobId, 'ai-gateway.viewer', 'alpha');
      expect((await bob.put('/api/v1/me/default-project', { project_id: projects.alpha })).status).toBe(200);
      const admin = as(await cp.person('admin'));
      expect((await admin.patch(`/api/v1/users/${bobId}`, { admin: true })).status).toBe(200);
      expect((await admin.patch(`/api/v1/users/${bobId}`, { disabled: true })).status).toBe(200);
    });

    it('still answers the profile, saying disabled, with no permissions and no administration', async () => {
      const me = await bob.get('/api/v1/me');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: bobId, disabled: true, admin: false, default_project: null, permissions: { workspace: [], projects: {} } });
    });

    it('refuses every change with 403 user_disabled', async () => {
      for (const response of [await bob.put('/api/v1/me/theme', { theme: 'dark' }), await bob.put('/api/v1/me/default-project', { project_id: null })]) {
        expect(response.status).toBe(403);
        expect(response.body.error.code).toBe('user_disabled');
      }
      expect(await cp.dataSource.query('select theme, default_project_id from users where id = $1', [bobId])).toEqual([{ theme: 'system', default_project_id: projects.alpha }]);
    });

    it('gives everything back once enabled again', async () => {
      expect((await as(await cp.person('admin')).patch(`/api/v1/users/${bobId}`, { disabled: false })).status).toBe(200);
      const me = await bob.get('/api/v1/me');
      expect(me.body).toMatchObject({
        disabled: false,
        admin: true,
        default_project: { slug: 'alpha' },
        permissions: { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } },
      });
    });
  });
});
