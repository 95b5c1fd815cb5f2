import request from 'supertest';
import { parsePermissionKey, PERMISSION_KEY_PATTERN } from '@arbor/contract';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('GET and PUT /api/v1/users/{id}/permissions', () => {
  let cp: ControlPlaneHarness;
  let admin: string;
  let userId: string;

  const path = (id: string) => `/api/v1/users/${id}/permissions`;
  const read = (id: string, token = admin) => request(cp.url).get(path(id)).auth(token, { type: 'bearer' });
  const replace = (id: string, body: unknown, token = admin) =>
    request(cp.url)
      .put(path(id))
      .auth(token, { type: 'bearer' })
      .send(body as object);
  const storedGrants = async (id: string) =>
    (await cp.dataSource.query(
      `select p.slug, g.permission_key as key from permission_grants g left join projects p on p.id = g.project_id
       where g.user_id = $1 order by p.slug nulls first, g.permission_key`,
      [id],
    )) as { slug: string | null; key: string }[];
  const auditEntries = async (id: string) =>
    (await cp.dataSource.query("select actor_kind, actor_subject, action, target_id, details from audit_log where target_id = $1 and action = 'permissions.replaced' order by id", [
      id,
    ])) as { actor_kind: string; actor_subject: string; action: string; target_id: string; details: Record<string, unknown> }[];

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = await cp.person('admin');
    const user = await request(cp.url).post('/api/v1/users').auth(admin, { type: 'bearer' }).send({ email: 'dana@arbor.local' });
    userId = (user.body as { id: string }).id;
    for (const slug of ['alpha', 'beta']) {
      const project = await request(cp.url).post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug, name: slug });
      expect(project.status).toBe(201);
    }
  });

  afterAll(() => cp?.close());

  it("stores exactly the keys the contract's grammar parses: one grammar for the database and every product", async () => {
    const [{ definition }] = (await cp.dataSource.query(
      "select pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = 'permission_grants'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%permission_key%'",
    )) as { definition: string }[];
    expect(/'(.*)'::text/.exec(definition)?.[1]).toBe(PERMISSION_KEY_PATTERN);
    for (const key of ['ai-gateway', 'ai-gateway.operator', '3d-viewer.viewer', 'a.b.c', 'AI', '-ai', 'ai.', 'ai gateway', '']) {
      const [{ accepted }] = (await cp.dataSource.query('select $1::text ~ $2 as accepted', [key, PERMISSION_KEY_PATTERN])) as { accepted: boolean }[];
      expect([key, accepted]).toEqual([key, parsePermissionKey(key) !== null]);
    }
  });

  it('shows a user without grants with empty sets', async () => {
    const response = await read(userId);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ user_id: userId, workspace: [], projects: {} });
  });

  it('replaces the whole grant set, answers and stores it, and audits it', async () => {
    const first = await replace(userId, {
      workspace: ['mcp-gateway', 'ai-gateway', 'ai-gateway'],
      projects: { beta: ['ai-gateway.viewer'], alpha: ['mcp-gateway.operator', 'ai-gateway.operator'] },
    });
    expect(first.status).toBe(200);
    const expected = {
      user_id: userId,
      workspace: ['ai-gateway', 'mcp-gateway'],
      projects: { alpha: ['ai-gateway.operator', 'mcp-gateway.operator'], beta: ['ai-gateway.viewer'] },
    };
    expect(first.body).toEqual(expected);
    expect((await read(userId)).body).toEqual(expected);

    const second = await replace(userId, { workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.operator'] } });
    expect(second.body).toEqual({ user_id: userId, workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.operator'] } });
    expect(await storedGrants(userId)).toEqual([
      { slug: null, key: 'ai-gateway' },
      { slug: 'beta', key: 'ai-gateway.operator' },
    ]);

    const entries = await auditEntries(userId);
    expect(entries).toHaveLength(2);
    expect(entries[1]).toEqual({
      actor_kind: 'person',
      actor_subject: expect.any(String),
      action: 'permissions.replaced',
      target_id: userId,
      details: { before: { workspace: expected.workspace, projects: expected.projects }, after: { workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.operator'] } } },
    });
  });

  it('takes back what GET answered (read-modify-write), and refuses a body naming another user', async () => {
    const read1 = (await read(userId)).body as { user_id: string; workspace: string[]; projects: Record<string, string[]> };
    const written = await replace(userId, { ...read1, workspace: [...read1.workspace, 'mcp-gateway'] });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ ...read1, workspace: ['ai-gateway', 'mcp-gateway'] });

    const other = await replace(userId, { ...read1, user_id: UNKNOWN_ID });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ code: 'invalid_request', details: { fields: { user_id: ['user_id must be the id in the path'] } } });
  });

  it('empties the set with empty lists', async () => {
    const response = await replace(userId, { workspace: [], projects: {} });
    expect(response.body).toEqual({ user_id: userId, workspace: [], projects: {} });
    expect(await storedGrants(userId)).toEqual([]);
  });

  it("shows a disabled user's grants as stored", async () => {
    await replace(userId, { workspace: ['ai-gateway'], projects: {} });
    const setDisabled = (disabled: boolean) => request(cp.url).patch(`/api/v1/users/${userId}`).auth(admin, { type: 'bearer' }).send({ disabled });
    expect((await setDisabled(true)).status).toBe(200);
    try {
      expect((await read(userId)).body.workspace).toEqual(['ai-gateway']);
    } finally {
      await setDisabled(false);
    }
  });

  describe('refuses keys that name no known product or role, changing nothing', () => {
    beforeAll(async () => {
      await replace(userId, { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } });
    });

    it.each([
      ['an unknown product', { workspace: ['shop'], projects: {} }, ['shop']],
      ['an unknown role', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.owner'] } }, ['ai-gateway.owner']],
      ['the control plane, which is not a product', { workspace: ['control-plane'], projects: {} }, ['control-plane']],
      [
        'malformed keys',
        { workspace: ['AI-Gateway', '', 'ai-gateway.operator.extra', 'ai-gateway.'], projects: { alpha: [' ai-gateway'] } },
        ['AI-Gateway', '', 'ai-gateway.operator.extra', 'ai-gateway.', ' ai-gateway'],
      ],
    ])('%s: 400 unknown_permission_key naming the keys', async (_case, body, keys) => {
      const response = await replace(userId, body);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'unknown_permission_key', details: { keys } });
      expect(await storedGrants(userId)).toEqual([
        { slug: null, key: 'ai-gateway' },
        { slug: 'alpha', key: 'ai-gateway.viewer' },
      ]);
    });

    it('slugs of no project: 400 unknown_project naming them', async () => {
      const audited = (await auditEntries(userId)).length;
      const response = await replace(userId, { workspace: [], projects: { alpha: ['ai-gateway'], nowhere: ['ai-gateway'], gone: [] } });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'unknown_project', details: { slugs: ['nowhere', 'gone'] } });
      expect(await storedGrants(userId)).toHaveLength(2);
      expect(await auditEntries(userId)).toHaveLength(audited);
    });

    it('quotes at most 20 unknown keys or slugs, each as a 64-character excerpt, and counts the rest', async () => {
      // Near the 100 kB body limit: 200 keys of 400 characters, 200 slugs of 400 characters.
      const long = (prefix: string, index: number) => `${prefix}${index}-${'x'.repeat(400)}`;
      const keys = await replace(userId, { workspace: Array.from({ length: 200 }, (_, index) => long('k', index)), projects: {} });
      const slugs = await replace(userId, { workspace: [], projects: Object.fromEntries(Array.from({ length: 200 }, (_, index) => [long('s', index), []])) });
      for (const [response, code, list] of [
        [keys, 'unknown_permission_key', 'keys'],
        [slugs, 'unknown_project', 'slugs'],
      ] as const) {
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe(code);
        expect(response.body.error.message).toMatch(/ and 180 more$/);
        const quoted = (response.body.error.details as Record<string, string[]>)[list];
        expect(quoted).toHaveLength(20);
        expect(JSON.stringify(response.body).length).toBeLessThan(5_000);
        expect(JSON.stringify(response.body)).not.toContain('x'.repeat(65));
      }
    });

    it('a __proto__ slug: 400 naming it, not silently dropped while the rest is stored', async () => {
      const audited = (await auditEntries(userId)).length;
      const response = await request(cp.url)
        .put(path(userId))
        .auth(admin, { type: 'bearer' })
        .set('content-type', 'application/json')
        .send('{"workspace":[],"projects":{"alpha":["ai-gateway"],"__proto__":["ai-gateway"]}}');
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', details: { fields: { 'projects.__proto__': [expect.any(String)] } } });
      expect(await storedGrants(userId)).toHaveLength(2);
      expect(await auditEntries(userId)).toHaveLength(audited);
    });

    it.each([
      ['no workspace', { projects: {} }, 'workspace'],
      ['no projects', { workspace: [] }, 'projects'],
      ['workspace not a list of strings', { workspace: [42], projects: {} }, 'workspace'],
      ['projects not lists by slug', { workspace: [], projects: { alpha: 'ai-gateway' } }, 'projects'],
      ['projects a list', { workspace: [], projects: ['alpha'] }, 'projects'],
      ['an unknown field', { workspace: [], projects: {}, admin: true }, 'admin'],
    ])('%s: 400 invalid_request naming the field', async (_case, body, field) => {
      const response = await replace(userId, body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(Object.keys(response.body.error.details.fields)).toContain(field);
      expect(await storedGrants(userId)).toHaveLength(2);
    });
  });

  it('answers 404 user_not_found for an unknown id', async () => {
    const get = await read(UNKNOWN_ID);
    expect(get.status).toBe(404);
    expect(get.body.error.code).toBe('user_not_found');
    const put = await replace(UNKNOWN_ID, { workspace: ['ai-gateway'], projects: {} });
    expect(put.status).toBe(404);
    expect(put.body.error.code).toBe('user_not_found');
  });

  it('answers 400 invalid_request naming the id when it is not a UUID', async () => {
    for (const response of [await read('dana'), await replace('dana', { workspace: [], projects: {} })]) {
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', details: { fields: { id: expect.any(Array) } } });
    }
  });

  it('lets only administrators in: 401 without a token, 403 for a person and for a machine', async () => {
    expect((await request(cp.url).get(path(userId))).status).toBe(401);
    for (const token of [await cp.person('alice'), await cp.machine('ai-gateway-m2m')]) {
      const get = await read(userId, token);
      expect(get.status).toBe(403);
      expect(get.body.error.code).toBe('forbidden');
      expect((await replace(userId, { workspace: ['ai-gateway'], projects: {} }, token)).status).toBe(403);
    }
  });
});
