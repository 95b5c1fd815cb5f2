// The admin API of virtual keys as a platform team meets it: persons signed in through the suite's
// identity provider manage the keys of projects where the control plane grants them
// ai-gateway.operator. The built control plane, real PostgreSQL, real dev-idp tokens.
import { createTestDatabase, machineToken, personToken, startTestControlPlane, TestControlPlane, TestDatabase } from '@arbor/testing';
import { RunningService, startService } from '@arbor/platform';
import { aiGatewayService } from './ai-gateway.module';
import { managedBy, MASTER_KEY, startTestGateway } from './testing/gateway-test-support';

interface Answer {
  status: number;
  body: { id?: string; key?: string; project?: string; keys?: { id: string; project: string; key?: string }[]; error?: { code: string; message: string } };
}

async function call(baseUrl: string, method: string, route: string, token: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Answer['body']) : {} };
}

describe('managing virtual keys as a person with ai-gateway.operator', () => {
  let controlPlane: TestControlPlane;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  const tokens = { admin: '', alice: '', bob: '', carol: '' };
  const admin = (method: string, route: string, body?: unknown) => call(gateway.url, method, route, MASTER_KEY, body);

  beforeAll(async () => {
    controlPlane = await startTestControlPlane();
    Object.assign(tokens, controlPlane.tokens);
    await controlPlane.grant('alice', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } });
    await controlPlane.grant('carol', { workspace: ['ai-gateway', 'ai-gateway.operator'], projects: {} });

    database = await createTestDatabase();
    gateway = await startTestGateway(database, undefined, managedBy(controlPlane));
  });

  afterAll(async () => {
    await gateway?.close();
    await controlPlane?.stop();
    await database?.drop();
  });

  it('lets an operator create, read, block, rotate and delete keys of their project', async () => {
    const created = await call(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'alpha' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk-/);
    const id = created.body.id as string;
    expect((await call(gateway.url, 'GET', `/api/v1/keys/${id}`, tokens.alice)).status).toBe(200);
    expect((await call(gateway.url, 'PATCH', `/api/v1/keys/${id}`, tokens.alice, { rpm_limit: 10 })).status).toBe(200);
    expect((await call(gateway.url, 'POST', `/api/v1/keys/${id}/block`, tokens.alice)).status).toBe(200);
    expect((await call(gateway.url, 'POST', `/api/v1/keys/${id}/rotate`, tokens.alice)).body.key).toMatch(/^sk-/);
    expect((await call(gateway.url, 'DELETE', `/api/v1/keys/${id}`, tokens.alice)).status).toBe(204);
  });

  it('refuses an operator keys of a project they do not operate, and moving a key there', async () => {
    const beta = await call(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'beta' });
    expect(beta.status).toBe(403);
    expect(beta.body.error?.code).toBe('forbidden');
    expect(beta.body.error?.message).toContain('ai-gateway.operator');

    const masterMade = await admin('POST', '/api/v1/keys', { project: 'beta' });
    expect((await call(gateway.url, 'GET', `/api/v1/keys/${masterMade.body.id}`, tokens.alice)).status).toBe(403);
    expect((await call(gateway.url, 'DELETE', `/api/v1/keys/${masterMade.body.id}`, tokens.alice)).status).toBe(403);

    const own = await call(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'alpha' });
    expect((await call(gateway.url, 'PATCH', `/api/v1/keys/${own.body.id}`, tokens.alice, { project: 'beta' })).status).toBe(403);
  });

  it('quotes a 40 MB project it refuses back only as a 64-character excerpt', async () => {
    const huge = 'p'.repeat(40 * 1024 * 1024);
    const own = await call(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'alpha' });
    const send = async (method: string, route: string) => {
      const response = await fetch(`${gateway.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project: huge }),
      });
      const text = await response.text();
      expect(text.length).toBeLessThan(1024);
      expect(text).not.toContain('p'.repeat(65));
      return { status: response.status, error: (JSON.parse(text) as Answer['body']).error };
    };
    // The permission check names the project it was asked about.
    expect(await send('POST', '/api/v1/keys')).toEqual({ status: 403, error: { code: 'forbidden', message: expect.stringContaining(`on project ${'p'.repeat(64)}…`) } });
    // The key's own project is checked first, then the body validated.
    expect(await send('PATCH', `/api/v1/keys/${own.body.id}`)).toMatchObject({ status: 400, error: { code: 'invalid_request' } });
  });

  it('lists only the keys of projects the person operates; workspace operators see all', async () => {
    await admin('POST', '/api/v1/keys', { project: 'beta' });
    const mine = await call(gateway.url, 'GET', '/api/v1/keys', tokens.alice);
    expect(mine.status).toBe(200);
    expect(new Set(mine.body.keys?.map((key) => key.project))).toEqual(new Set(['alpha']));
    expect((await call(gateway.url, 'GET', '/api/v1/keys?project=beta', tokens.alice)).status).toBe(403);

    const all = await call(gateway.url, 'GET', '/api/v1/keys', tokens.carol);
    expect(new Set(all.body.keys?.map((key) => key.project))).toEqual(new Set(['alpha', 'beta']));
    expect((await call(gateway.url, 'POST', '/api/v1/keys', tokens.carol, { project: 'beta' })).status).toBe(201);
  });

  it('lets a viewer read the keys and spend of their project, never a secret, and manage nothing', async () => {
    const made = await admin('POST', '/api/v1/keys', { project: 'alpha' });
    const id = made.body.id as string;
    expect((await call(gateway.url, 'POST', '/api/v1/keys', tokens.bob, { project: 'alpha' })).status).toBe(403);
    const listed = await call(gateway.url, 'GET', '/api/v1/keys', tokens.bob);
    expect(listed.status).toBe(200);
    expect(new Set(listed.body.keys?.map((key) => key.project))).toEqual(new Set(['alpha']));
    expect(listed.body.keys?.some((key) => 'key' in key)).toBe(false);
    const one = await call(gateway.url, 'GET', `/api/v1/keys/${id}`, tokens.bob);
    expect(one.status).toBe(200);
    expect(one.body.key).toBeUndefined();
    expect((await call(gateway.url, 'GET', `/api/v1/keys/${id}/spend`, tokens.bob)).status).toBe(200);
    expect((await call(gateway.url, 'GET', '/api/v1/spend?project=alpha', tokens.bob)).status).toBe(200);
    expect((await call(gateway.url, 'GET', '/api/v1/spend?project=beta', tokens.bob)).status).toBe(403);
    for (const [method, route] of [
      ['POST', `/api/v1/keys/${id}/rotate`],
      ['POST', `/api/v1/keys/${id}/block`],
      ['DELETE', `/api/v1/keys/${id}`],
    ]) {
      const refused = await call(gateway.url, method, route, tokens.bob);
      expect(refused.status).toBe(403);
      expect(refused.body.error?.message).toContain('ai-gateway.operator');
    }
    expect((await call(gateway.url, 'PATCH', `/api/v1/keys/${id}`, tokens.bob, { rpm_limit: 1 })).status).toBe(403);
  });

  it('answers an unknown key 404 and a malformed id 400 before asking about permissions', async () => {
    const unknown = await call(gateway.url, 'GET', '/api/v1/keys/00000000-0000-4000-8000-000000000000', tokens.bob);
    expect(unknown.status).toBe(404);
    expect((await call(gateway.url, 'GET', '/api/v1/keys/not-a-uuid', tokens.bob)).status).toBe(400);
  });

  it('refuses tokens not meant for the gateway, forged ones and virtual keys', async () => {
    // ai-gateway-m2m's tokens are for the control plane (audience control-plane), not for this API.
    const wrongAudience = await call(gateway.url, 'GET', '/api/v1/keys', await machineToken('ai-gateway-m2m'));
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.body.error?.code).toBe('invalid_token');

    const forged = `${tokens.alice.slice(0, tokens.alice.lastIndexOf('.'))}.c2lnbmF0dXJl`;
    expect((await call(gateway.url, 'GET', '/api/v1/keys', forged)).status).toBe(401);

    const virtualKey = (await admin('POST', '/api/v1/keys', { project: 'alpha' })).body.key as string;
    const refused = await call(gateway.url, 'GET', '/api/v1/keys', virtualKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.code).toBe('invalid_api_key');
  });

  it('answers 503 while the control plane cannot say, and keeps serving the master key', async () => {
    await controlPlane.stop();
    // Nobody asked about gamma before: nothing cached to fall back on.
    const unavailable = await call(gateway.url, 'POST', '/api/v1/keys', await personToken('admin'), { project: 'gamma' });
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error?.code).toBe('control_plane_unavailable');
    expect((await admin('POST', '/api/v1/keys', { project: 'gamma' })).status).toBe(201);
  });
});

describe('a gateway without control-plane settings', () => {
  it('serves the master key and tells a person why it cannot serve them', async () => {
    const database = await createTestDatabase();
    const gateway = await startService(aiGatewayService, {
      AIGW_DATABASE_URL: database.url,
      AIGW_LISTEN_ADDR: '127.0.0.1:0',
      AIGW_LOG: 'off',
      AIGW_MASTER_KEY: MASTER_KEY,
    });
    try {
      const person = await call(gateway.url, 'GET', '/api/v1/keys', await personToken('alice'));
      expect(person.status).toBe(503);
      expect(person.body.error?.code).toBe('control_plane_not_configured');
      expect(person.body.error?.message).toContain('AIGW_CONTROL_PLANE_URL');
      expect((await call(gateway.url, 'GET', '/api/v1/keys', MASTER_KEY)).status).toBe(200);
    } finally {
      await gateway.close();
      await database.drop();
    }
  });
});
