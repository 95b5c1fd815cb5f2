import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

const EFFECTIVE = '/api/v1/permissions/effective';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

function subjectOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
}

describe('GET /api/v1/permissions/effective', () => {
  let cp: ControlPlaneHarness;
  let machine: string;
  let admin: string;
  let alice: string;
  let bob: string;
  const ids = { alice: '', bob: '', alpha: '', beta: '', gamma: '' };

  const get = (token: string, query: Record<string, string>, ifNoneMatch?: string) => {
    const call = request(cp.url).get(EFFECTIVE).query(query).auth(token, { type: 'bearer' });
    return ifNoneMatch === undefined ? call : call.set('If-None-Match', ifNoneMatch);
  };
  const replaceGrants = async (userId: string, grants: { workspace: string[]; projects: Record<string, string[]> }) => {
    const response = await request(cp.url).put(`/api/v1/users/${userId}/permissions`).auth(admin, { type: 'bearer' }).send(grants);
    expect(response.status).toBe(200);
  };
  const asAdmin = <T extends request.Test>(call: T): T => call.auth(admin, { type: 'bearer' });
  /** Pre-created by an administrator: known by id, no subject until a first sign-in. */
  const createUser = async (email: string): Promise<string> => {
    const response = await asAdmin(request(cp.url).post('/api/v1/users')).send({ email });
    expect(response.status).toBe(201);
    return (response.body as { id: string }).id;
  };
  const createProject = async (slug: string): Promise<string> => {
    const response = await asAdmin(request(cp.url).post('/api/v1/projects')).send({ slug, name: slug });
    expect(response.status).toBe(201);
    return (response.body as { id: string }).id;
  };
  /** A person's first call asking for their own subject provisions them. */
  const provision = async (token: string): Promise<string> => {
    const response = await get(token, { subject: subjectOf(token) });
    expect(response.status).toBe(200);
    return (response.body as { user_id: string }).user_id;
  };

  beforeAll(async () => {
    cp = await startControlPlane();
    [machine, admin, alice, bob] = await Promise.all([cp.machine('ai-gateway-m2m'), cp.person('admin'), cp.person('alice'), cp.person('bob')]);
    ids.alice = await provision(alice);
    ids.bob = await provision(bob);
    ids.alpha = await createProject('alpha');
    ids.beta = await createProject('beta');
    ids.gamma = await createProject('gamma');
    await replaceGrants(ids.alice, {
      workspace: ['mcp-gateway', 'ai-gateway'],
      projects: { alpha: ['mcp-gateway.operator', 'ai-gateway.operator'], beta: ['ai-gateway.viewer'] },
    });
    await replaceGrants(ids.bob, { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } });
  });

  afterAll(() => cp?.close());

  describe('refuses bad parameter combinations with 400 naming them', () => {
    it.each([
      ['neither subject nor user_id', {}, ['subject', 'user_id']],
      ['both subject and user_id', { subject: 'x', user_id: UNKNOWN_ID }, ['subject', 'user_id']],
      ['both project and project_id', { subject: 'x', project: 'alpha', project_id: UNKNOWN_ID }, ['project', 'project_id']],
      ['a group other than projects', { subject: 'x', group: 'repositories' }, ['group']],
      ['group=projects with a project', { subject: 'x', group: 'projects', project: 'alpha' }, ['group', 'project']],
      ['group=projects with a project_id', { subject: 'x', group: 'projects', project_id: UNKNOWN_ID }, ['group', 'project_id']],
      ['an empty subject', { subject: '' }, ['subject']],
      ['an unknown parameter', { subject: 'x', projectId: UNKNOWN_ID }, ['projectId']],
      ['a user_id that is not a UUID', { user_id: 'alice' }, ['user_id']],
      ['a project_id that is not a UUID', { subject: 'x', project_id: 'alpha' }, ['project_id']],
    ])('%s', async (_case, query, parameters) => {
      const response = await get(machine, query);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', details: { parameters } });
    });

    it('a parameter given twice', async () => {
      const response = await request(cp.url).get(`${EFFECTIVE}?user_id=${ids.alice}&user_id=${ids.bob}`).auth(machine, { type: 'bearer' });
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual({ parameters: ['user_id'] });
    });
  });

  it('answers 401 without a token', async () => {
    const response = await request(cp.url).get(EFFECTIVE).query({ user_id: ids.alice });
    expect(response.status).toBe(401);
  });

  describe('the single view', () => {
    it('gives a machine the workspace keys of a user by id, with ETag and Cache-Control', async () => {
      const response = await get(machine, { user_id: ids.alice });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({ user_id: ids.alice, permissions: ['ai-gateway', 'mcp-gateway'] });
      expect(response.headers['etag']).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(response.headers['cache-control']).toBe('private, max-age=60');
    });

    it('answers the same by subject, with the same ETag', async () => {
      const [byId, bySubject] = await Promise.all([get(machine, { user_id: ids.alice }), get(machine, { subject: subjectOf(alice) })]);
      expect(bySubject.status).toBe(200);
      expect(bySubject.body).toEqual(byId.body);
      expect(bySubject.headers['etag']).toBe(byId.headers['etag']);
    });

    it("adds a project's keys to the workspace keys, by slug or by id", async () => {
      const bySlug = await get(machine, { user_id: ids.alice, project: 'alpha' });
      expect(bySlug.status).toBe(200);
      expect(bySlug.body).toEqual({ user_id: ids.alice, permissions: ['ai-gateway', 'ai-gateway.operator', 'mcp-gateway', 'mcp-gateway.operator'] });
      const byId = await get(machine, { subject: subjectOf(alice), project_id: ids.alpha });
      expect(byId.body).toEqual(bySlug.body);
      expect(byId.headers['etag']).toBe(bySlug.headers['etag']);
      const beta = await get(machine, { user_id: ids.alice, project: 'beta' });
      expect(beta.body.permissions).toEqual(['ai-gateway', 'ai-gateway.viewer', 'mcp-gateway']);
      expect(beta.headers['etag']).not.toBe(bySlug.headers['etag']);
    });

    it('gives the workspace keys alone on a project without grants', async () => {
      const response = await get(machine, { user_id: ids.alice, project: 'gamma' });
      expect(response.body).toEqual({ user_id: ids.alice, permissions: ['ai-gateway', 'mcp-gateway'] });
    });
  });

  it('gives the grouped view: workspace keys, and per project slug only the keys granted there', async () => {
    const response = await get(machine, { user_id: ids.alice, group: 'projects' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      user_id: ids.alice,
      workspace: ['ai-gateway', 'mcp-gateway'],
      projects: { alpha: ['ai-gateway.operator', 'mcp-gateway.operator'], beta: ['ai-gateway.viewer'] },
    });
    expect(response.headers['etag']).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.headers['cache-control']).toBe('private, max-age=60');
  });

  describe('who may read whose permissions', () => {
    it('lets a person read their own set, by subject or by user id', async () => {
      expect((await get(alice, { subject: subjectOf(alice), project: 'alpha' })).status).toBe(200);
      const byId = await get(alice, { user_id: ids.alice, group: 'projects' });
      expect(byId.status).toBe(200);
      expect(byId.body.user_id).toBe(ids.alice);
    });

    it.each([
      ["another person's user id", () => ({ user_id: ids.bob })],
      ["another person's subject", () => ({ subject: subjectOf(bob) })],
      ['an unknown user id', () => ({ user_id: UNKNOWN_ID })],
      ['an unknown subject', () => ({ subject: 'nobody' })],
      ["another person's user id and an unknown project", () => ({ user_id: ids.bob, project: 'nowhere' })],
    ])('refuses a person asking for %s with 403', async (_case, query) => {
      const response = await get(alice, query());
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
    });

    it("lets an administrator read another person's set", async () => {
      const response = await get(admin, { user_id: ids.bob, project: 'alpha' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ user_id: ids.bob, permissions: ['ai-gateway', 'ai-gateway.viewer'] });
    });

    it('provisions a person asking for their own subject before the control plane knew them', async () => {
      const carol = await cp.person('carol');
      const subject = subjectOf(carol);
      expect(await cp.dataSource.query('select id from users where subject = $1', [subject])).toEqual([]);
      const response = await get(carol, { subject });
      expect(response.status).toBe(200);
      const [row] = (await cp.dataSource.query('select id, email from users where subject = $1', [subject])) as { id: string; email: string }[];
      expect(row.email).toBe('carol@arbor.local');
      expect(response.body).toEqual({ user_id: row.id, permissions: [] });
    });

    it('does not provision anyone for a machine asking for an unknown subject', async () => {
      const response = await get(machine, { subject: 'never-signed-in' });
      expect(response.status).toBe(404);
      expect(await cp.dataSource.query("select id from users where subject = 'never-signed-in'")).toEqual([]);
    });
  });

  describe('unknown users and projects answer 404', () => {
    it.each([
      ['an unknown user id', () => ({ user_id: UNKNOWN_ID }), 'user_not_found'],
      ['an unknown subject', () => ({ subject: 'nobody', group: 'projects' }), 'user_not_found'],
      ['an unknown user on a known project', () => ({ user_id: UNKNOWN_ID, project: 'alpha' }), 'user_not_found'],
      ['an unknown project slug', () => ({ user_id: ids.alice, project: 'nowhere' }), 'project_not_found'],
      ['an unknown project id', () => ({ user_id: ids.alice, project_id: UNKNOWN_ID }), 'project_not_found'],
    ])('%s', async (_case, query, code) => {
      const response = await get(machine, query());
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe(code);
    });
  });

  describe('conditional requests', () => {
    it('answers 304 without a body when If-None-Match matches, keeping ETag and Cache-Control', async () => {
      const first = await get(machine, { user_id: ids.bob, project: 'alpha' });
      const etag = first.headers['etag'];
      const again = await get(machine, { user_id: ids.bob, project: 'alpha' }, etag);
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers['etag']).toBe(etag);
      expect(again.headers['cache-control']).toBe('private, max-age=60');
    });

    it.each([
      ['a weak form of the tag', (etag: string) => `W/${etag}`],
      ['a list holding the tag', (etag: string) => `"other", W/"x,y", ${etag}`],
      ['*', () => '*'],
    ])('matches %s', async (_case, header) => {
      const { headers } = await get(machine, { user_id: ids.bob });
      const response = await get(machine, { user_id: ids.bob }, header(headers['etag']));
      expect(response.status).toBe(304);
    });

    it('answers 200 with the body when If-None-Match names other tags', async () => {
      const { headers } = await get(machine, { user_id: ids.bob });
      const response = await get(machine, { user_id: ids.bob }, `"not-it", W/${headers['etag'].slice(0, -2)}"`);
      expect(response.status).toBe(200);
      expect(response.body.permissions).toEqual(['ai-gateway']);
    });

    it("does not match another view's tag", async () => {
      const grouped = await get(machine, { user_id: ids.bob, group: 'projects' });
      const single = await get(machine, { user_id: ids.bob }, grouped.headers['etag']);
      expect(single.status).toBe(200);
    });
  });

  it('answers a repeated question from its cache, without a database query', async () => {
    await get(machine, { user_id: ids.bob, group: 'projects' });
    // Every query, TypeORM's or a pooled one, checks a connection out of the service's pool.
    const pool = (cp.dataSource.driver as unknown as { master: { connect(): Promise<unknown> } }).master;
    const connect = jest.spyOn(pool, 'connect');
    try {
      const [ok, notModified] = [await get(machine, { user_id: ids.bob, group: 'projects' }), await get(machine, { user_id: ids.bob, group: 'projects' }, '*')];
      expect([ok.status, notModified.status]).toEqual([200, 304]);
      expect(connect).not.toHaveBeenCalled();
      // A question not asked before does reach the database (the spy sees it).
      expect((await get(machine, { subject: subjectOf(bob), project: 'gamma' })).status).toBe(200);
      expect(connect).toHaveBeenCalled();
    } finally {
      connect.mockRestore();
    }
  });

  it('returns role keys as granted, even without the sign-in key (the product checks both)', async () => {
    const userId = await createUser('role-only@arbor.local');
    await replaceGrants(userId, { workspace: [], projects: { gamma: ['mcp-gateway.viewer'] } });
    const response = await get(machine, { user_id: userId, project: 'gamma' });
    expect(response.body.permissions).toEqual(['mcp-gateway.viewer']);
  });

  describe('the ETag follows every change of the answer', () => {
    let userId: string;

    beforeAll(async () => {
      userId = await createUser('etag@arbor.local');
      await replaceGrants(userId, { workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.operator'] } });
    });

    /** Asks with the previous tag: the answer must be a 200 with a new tag and the new body. */
    const expectChanged = async (query: Record<string, string>, previous: string) => {
      const response = await get(machine, query, previous);
      expect(response.status).toBe(200);
      expect(response.headers['etag']).not.toBe(previous);
      return response;
    };

    it('when a grant is added or removed', async () => {
      const before = await get(machine, { user_id: userId, project: 'beta' });
      await replaceGrants(userId, { workspace: ['ai-gateway', 'mcp-gateway'], projects: { beta: ['ai-gateway.operator'] } });
      const added = await expectChanged({ user_id: userId, project: 'beta' }, before.headers['etag']);
      expect(added.body.permissions).toEqual(['ai-gateway', 'ai-gateway.operator', 'mcp-gateway']);
      await replaceGrants(userId, { workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.operator'] } });
      const removed = await expectChanged({ user_id: userId, project: 'beta' }, added.headers['etag']);
      expect(removed.body).toEqual(before.body);
      // The same answer again: the tag is derived from the answer, so the first one matches again.
      expect(removed.headers['etag']).toBe(before.headers['etag']);
    });

    it('when the project is renamed (the grouped view keys by slug)', async () => {
      const before = await get(machine, { user_id: userId, group: 'projects' });
      expect(Object.keys(before.body.projects)).toEqual(['beta']);
      expect((await asAdmin(request(cp.url).patch(`/api/v1/projects/${ids.beta}`)).send({ slug: 'beta-renamed' })).status).toBe(200);
      const after = await expectChanged({ user_id: userId, group: 'projects' }, before.headers['etag']);
      expect(after.body.projects).toEqual({ 'beta-renamed': ['ai-gateway.operator'] });
    });

    it('when the project is deleted', async () => {
      const before = await get(machine, { user_id: ids.alice, group: 'projects' });
      const single = await get(machine, { user_id: ids.alice, project_id: ids.beta });
      expect(single.status).toBe(200);
      expect((await asAdmin(request(cp.url).delete(`/api/v1/projects/${ids.beta}`))).status).toBe(204);
      const after = await expectChanged({ user_id: ids.alice, group: 'projects' }, before.headers['etag']);
      expect(after.body.projects).toEqual({ alpha: ['ai-gateway.operator', 'mcp-gateway.operator'] });
      const gone = await get(machine, { user_id: ids.alice, project_id: ids.beta }, single.headers['etag']);
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe('project_not_found');
    });

    it('when the user is disabled: empty sets', async () => {
      const single = await get(machine, { user_id: userId });
      const grouped = await get(machine, { user_id: userId, group: 'projects' });
      expect((await asAdmin(request(cp.url).patch(`/api/v1/users/${userId}`)).send({ disabled: true })).status).toBe(200);
      const singleAfter = await expectChanged({ user_id: userId }, single.headers['etag']);
      expect(singleAfter.body).toEqual({ user_id: userId, permissions: [] });
      const groupedAfter = await expectChanged({ user_id: userId, group: 'projects' }, grouped.headers['etag']);
      expect(groupedAfter.body).toEqual({ user_id: userId, workspace: [], projects: {} });
      const onProject = await get(machine, { user_id: userId, project: 'alpha' });
      expect(onProject.body).toEqual({ user_id: userId, permissions: [] });
    });
  });
});
