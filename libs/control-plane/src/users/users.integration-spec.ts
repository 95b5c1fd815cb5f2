import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

// The fixed subjects of the demo people in deploy/keycloak/realm-export.json.
const SUBJECTS = {
  admin: 'e6bb361f-6782-4c86-8e89-a804a599a83e',
  bob: '18d1b156-6c2f-4a7d-a8f8-e5b332f95904',
  carol: '562056dd-344d-48ff-8fab-74fc35fc10a7',
};

describe('users administration (/api/v1/users)', () => {
  let cp: ControlPlaneHarness;
  let admin: string;

  const as = (token: string) => ({
    get: (path: string) => request(cp.url).get(path).auth(token, { type: 'bearer' }),
    post: (path: string, body: object) => request(cp.url).post(path).auth(token, { type: 'bearer' }).send(body),
    patch: (path: string, body: object) => request(cp.url).patch(path).auth(token, { type: 'bearer' }).send(body),
  });

  const auditRows = async (action: string, targetId: string) =>
    (await cp.dataSource.query('select actor_subject, actor_kind, target_id, details from audit_log where action = $1 and target_id = $2 order by id', [action, targetId])) as {
      actor_subject: string;
      actor_kind: string;
      target_id: string;
      details: Record<string, unknown>;
    }[];

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = await cp.person('admin');
  });

  afterAll(() => cp.close());

  it('is for administrators only: no token 401, another person or a machine 403', async () => {
    expect((await request(cp.url).get('/api/v1/users')).status).toBe(401);
    const alice = as(await cp.person('alice'));
    const machine = as(await cp.machine('ai-gateway-m2m'));
    for (const caller of [alice, machine]) {
      expect((await caller.get('/api/v1/users')).status).toBe(403);
      expect((await caller.post('/api/v1/users', { email: 'someone@arbor.local' })).status).toBe(403);
      expect((await caller.get(`/api/v1/users/${await cp.userId('admin')}`)).status).toBe(403);
      expect((await caller.patch(`/api/v1/users/${await cp.userId('admin')}`, { disabled: true })).status).toBe(403);
    }
    expect((await cp.dataSource.query("select count(*)::int as n from users where email = 'someone@arbor.local'"))[0].n).toBe(0);
  });

  it('pre-creates a user by email (lower-cased) and audits it; the same email again is 409 user_exists', async () => {
    const created = await as(admin).post('/api/v1/users', { email: '  Dora@Example.COM ', display_name: 'Dora', admin: true });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      subject: null,
      email: 'dora@example.com',
      display_name: 'Dora',
      disabled: false,
      admin: true,
      identity_provider_admin: false,
      theme: 'system',
      default_project_id: null,
      created_at: expect.any(String),
    });
    expect(await auditRows('user.created', created.body.id)).toEqual([
      { actor_subject: SUBJECTS.admin, actor_kind: 'person', target_id: created.body.id, details: { email: 'dora@example.com', admin: true } },
    ]);

    const again = await as(admin).post('/api/v1/users', { email: 'DORA@example.com' });
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({ code: 'user_exists', message: expect.stringContaining('dora@example.com'), details: { email: 'dora@example.com' } });
    expect((await cp.dataSource.query("select count(*)::int as n from users where email = 'dora@example.com'"))[0].n).toBe(1);
  });

  it('refuses a body that is not a valid new user, naming the fields', async () => {
    const response = await as(admin).post('/api/v1/users', { email: 'not-an-email', admin: 'yes', role: 'boss' });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(Object.keys(response.body.error.details.fields).sort()).toEqual(['admin', 'email', 'role']);
  });

  it('links a pre-created user to the person who first signs in with that email', async () => {
    const created = await as(admin).post('/api/v1/users', { email: 'CAROL@arbor.local' });
    expect(created.status).toBe(201);

    const me = await as(await cp.person('carol')).get('/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: created.body.id, subject: SUBJECTS.carol, email: 'carol@arbor.local' });

    const user = await as(admin).get(`/api/v1/users/${created.body.id}`);
    expect(user.body).toMatchObject({ subject: SUBJECTS.carol, email: 'carol@arbor.local' });
    // The name came from the token, since the administrator gave none.
    expect(user.body.display_name).not.toBe('');
    expect((await cp.dataSource.query("select count(*)::int as n from users where email = 'carol@arbor.local' or subject = $1", [SUBJECTS.carol]))[0].n).toBe(1);
  });

  it('gives a pre-created user their grants at sign-in, even after a product read them by id', async () => {
    const created = await as(admin).post('/api/v1/users', { email: 'alice@arbor.local' });
    expect(created.status).toBe(201);
    await cp.dataSource.query("insert into permission_grants (user_id, permission_key) values ($1, 'ai-gateway')", [created.body.id]);
    const machine = as(await cp.machine('ai-gateway-m2m'));
    // Answered (and cached) while the user has no subject yet.
    expect((await machine.get(`/api/v1/permissions/effective?user_id=${created.body.id}`)).body).toEqual({
      user_id: created.body.id,
      permissions: ['ai-gateway'],
    });

    const alice = as(await cp.person('alice'));
    expect((await alice.get('/api/v1/me')).body).toMatchObject({ id: created.body.id, permissions: { workspace: ['ai-gateway'] } });
    // Linking moved the access version: the cached answer is not kept as one of nobody's.
    const own = await alice.get(`/api/v1/permissions/effective?user_id=${created.body.id}`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ user_id: created.body.id, permissions: ['ai-gateway'] });
  });

  it('makes a user pre-created as administrator one from their very first request', async () => {
    const created = await as(admin).post('/api/v1/users', { email: 'bob@arbor.local', admin: true });
    expect(created.status).toBe(201);
    const bob = as(await cp.person('bob'));
    // Not through /me first: the admin check itself finds the pre-created record by email.
    expect((await bob.get('/api/v1/users')).status).toBe(200);
    expect((await bob.get('/api/v1/me')).body).toMatchObject({ id: created.body.id, admin: true });
  });

  it('lists users, filtered by exact email or by a search text', async () => {
    const all = await as(admin).get('/api/v1/users');
    expect(all.status).toBe(200);
    const emails = (all.body.users as { email: string }[]).map((user) => user.email);
    expect(emails).toEqual(expect.arrayContaining(['dora@example.com', 'carol@arbor.local', 'bob@arbor.local', 'alice@arbor.local']));
    const created = (all.body.users as { created_at: string }[]).map((user) => user.created_at);
    expect(created).toEqual([...created].sort());
    expect(all.body.users[0]).toEqual({
      id: expect.any(String),
      subject: expect.anything(),
      email: expect.any(String),
      display_name: expect.any(String),
      disabled: false,
      admin: expect.any(Boolean),
      identity_provider_admin: expect.any(Boolean),
      theme: 'system',
      default_project_id: null,
      created_at: expect.any(String),
    });

    const byEmail = await as(admin).get('/api/v1/users').query({ email: 'ALICE@arbor.local' });
    expect(byEmail.body.users.map((user: { email: string }) => user.email)).toEqual(['alice@arbor.local']);

    const search = await as(admin).get('/api/v1/users').query({ q: 'EXAMPLE' });
    expect(search.body.users.map((user: { email: string }) => user.email)).toEqual(['dora@example.com']);

    const wildcard = await as(admin).get('/api/v1/users').query({ q: '%' });
    expect(wildcard.body.users).toEqual([]);
  });

  it('pages the list with limit and after_id, oldest first, each user once', async () => {
    const all = (await as(admin).get('/api/v1/users')).body as { users: { id: string }[]; next_after_id: string | null };
    expect(all.next_after_id).toBeNull();
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page = await as(admin).get(`/api/v1/users?limit=2${after ? `&after_id=${after}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.users.length).toBeLessThanOrEqual(2);
      seen.push(...(page.body.users as { id: string }[]).map((user) => user.id));
      after = page.body.next_after_id as string | null;
    } while (after);
    expect(seen).toEqual(all.users.map((user) => user.id));
    for (const query of ['?limit=0', '?limit=501', '?after_id=alice']) expect((await as(admin).get(`/api/v1/users${query}`)).status).toBe(400);
  });

  it('answers one user by id: 404 user_not_found for an unknown id, 400 for one that is not a UUID', async () => {
    const aliceId = await cp.userId('alice');
    const found = await as(admin).get(`/api/v1/users/${aliceId}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: aliceId, email: 'alice@arbor.local' });

    const unknown = await as(admin).get('/api/v1/users/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('user_not_found');
    expect((await as(admin).patch('/api/v1/users/00000000-0000-4000-8000-000000000000', { disabled: true })).status).toBe(404);

    const malformed = await as(admin).get('/api/v1/users/alice');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details.fields).toHaveProperty('id');
  });

  it('disables a user (audited as user.updated): their administration ends at once', async () => {
    const bobId = await cp.userId('bob');
    const bob = as(await cp.person('bob'));
    expect((await bob.get('/api/v1/users')).status).toBe(200);

    const disabled = await as(admin).patch(`/api/v1/users/${bobId}`, { disabled: true });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: bobId, disabled: true, admin: true });
    expect(await auditRows('user.updated', bobId)).toEqual([
      { actor_subject: SUBJECTS.admin, actor_kind: 'person', target_id: bobId, details: { changes: { disabled: { from: false, to: true } } } },
    ]);
    expect((await bob.get('/api/v1/users')).status).toBe(403);

    expect((await as(admin).patch(`/api/v1/users/${bobId}`, { disabled: false })).body.disabled).toBe(false);
    expect((await bob.get('/api/v1/users')).status).toBe(200);
  });

  it('grants and removes administration, effective on the next request', async () => {
    const aliceId = await cp.userId('alice');
    const alice = as(await cp.person('alice'));
    expect((await alice.get('/api/v1/users')).status).toBe(403);

    expect((await as(admin).patch(`/api/v1/users/${aliceId}`, { admin: true })).body.admin).toBe(true);
    expect((await alice.get('/api/v1/users')).status).toBe(200);
    expect((await alice.get('/api/v1/me')).body.admin).toBe(true);

    expect((await as(admin).patch(`/api/v1/users/${aliceId}`, { admin: false, display_name: 'Alice L.' })).body).toMatchObject({
      admin: false,
      display_name: 'Alice L.',
    });
    expect((await alice.get('/api/v1/users')).status).toBe(403);
    expect((await auditRows('user.updated', aliceId)).map((row) => row.details)).toEqual([
      { changes: { admin: { from: false, to: true } } },
      { changes: { admin: { from: true, to: false }, display_name: { from: expect.any(String), to: 'Alice L.' } } },
    ]);
  });

  it("says who is an administrator through the identity provider's realm role, which PATCH does not change", async () => {
    // Ada holds the realm role control-plane-admin; bob was made administrator in the control plane.
    const [adminId, bobId, carolId] = [await cp.userId('admin'), await cp.userId('bob'), await cp.userId('carol')];
    const user = async (id: string) => (await as(admin).get(`/api/v1/users/${id}`)).body as { admin: boolean; identity_provider_admin: boolean };
    expect(await user(adminId)).toMatchObject({ admin: false, identity_provider_admin: true });
    expect(await user(bobId)).toMatchObject({ admin: true, identity_provider_admin: false });
    expect(await user(carolId)).toMatchObject({ admin: false, identity_provider_admin: false });
    // The role left the identity provider (as far as the record knows): the next request of Ada's says so again.
    await cp.dataSource.query('update users set idp_admin = false where id = $1', [adminId]);
    expect((await as(admin).get('/api/v1/me')).status).toBe(200);
    expect(await user(adminId)).toMatchObject({ identity_provider_admin: true });
    const listed = (await as(admin).get('/api/v1/users').query({ email: 'admin@arbor.local' })).body.users as { identity_provider_admin: boolean }[];
    expect(listed.map((row) => row.identity_provider_admin)).toEqual([true]);
  });

  it('records nothing for a change that changes nothing, and refuses a malformed one', async () => {
    const aliceId = await cp.userId('alice');
    const before = (await auditRows('user.updated', aliceId)).length;
    expect((await as(admin).patch(`/api/v1/users/${aliceId}`, { disabled: false, admin: false })).status).toBe(200);
    expect(await auditRows('user.updated', aliceId)).toHaveLength(before);

    const bad = await as(admin).patch(`/api/v1/users/${aliceId}`, { disabled: 'yes', email: 'x@y.z' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details.fields).sort()).toEqual(['disabled', 'email']);
  });

  it('does not let an administrator disable themselves or remove their own administration (409 self_lockout)', async () => {
    // bob is an administrator only through the control plane: removing it would lock him out.
    const bobId = await cp.userId('bob');
    const bob = as(await cp.person('bob'));
    const demote = await bob.patch(`/api/v1/users/${bobId}`, { admin: false });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toMatchObject({ code: 'self_lockout', details: { field: 'admin' } });
    const disable = await bob.patch(`/api/v1/users/${bobId}`, { disabled: true });
    expect(disable.status).toBe(409);
    expect(disable.body.error).toMatchObject({ code: 'self_lockout', details: { field: 'disabled' } });
    expect(await cp.dataSource.query('select is_admin, disabled from users where id = $1', [bobId])).toEqual([{ is_admin: true, disabled: false }]);
    expect((await bob.get('/api/v1/users')).status).toBe(200);

    // The same rule for the realm administrator's own record; renaming oneself is fine.
    const adminId = await cp.userId('admin');
    expect((await as(admin).patch(`/api/v1/users/${adminId}`, { disabled: true })).status).toBe(409);
    expect((await as(admin).patch(`/api/v1/users/${adminId}`, { display_name: 'The Admin' })).status).toBe(200);
    // Another administrator may still do it.
    expect((await as(admin).patch(`/api/v1/users/${bobId}`, { admin: false })).body.admin).toBe(false);
  });
});
