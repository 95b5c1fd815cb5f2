// The client against the built control plane, real PostgreSQL and dev-idp tokens; a counting
// proxy in between shows which calls reached the control plane.
// eslint-disable-next-line @nx/enforce-module-boundaries -- test code, left out of the built package (tsconfig.lib.json), which imports nothing of ours
import { personToken, testIssuer } from '@arbor/testing';
import { can } from '../permissions/permission-keys';
import { BuiltControlPlane, CountingProxy, provision, sleep, startBuiltControlPlane, subjectOf } from '../testing/built-control-plane';
import { ControlPlaneClient } from './control-plane-client';
import { ControlPlaneForbiddenError, ControlPlaneNotFoundError, ControlPlaneUnavailableError } from './control-plane-client.errors';
import type { ControlPlaneClientOptions } from './control-plane-client.types';

const EFFECTIVE = '/api/v1/permissions/effective';

describe('ControlPlaneClient against the control plane', () => {
  let cp: BuiltControlPlane;
  let proxy: CountingProxy;
  let alice: string;
  let bob: string;
  const ids = { alpha: '', beta: '', alice: '', bob: '' };

  const client = (options: Partial<ControlPlaneClientOptions> = {}) =>
    new ControlPlaneClient({ baseUrl: proxy.url, issuer: testIssuer(), clientId: 'ai-gateway-m2m', clientSecret: 'dev-ai-gateway-m2m-secret', ...options });

  beforeAll(async () => {
    cp = await startBuiltControlPlane();
    proxy = new CountingProxy(cp.url);
    await proxy.start();
    const [aliceToken, bobToken] = await Promise.all([personToken('alice'), personToken('bob')]);
    alice = subjectOf(aliceToken);
    bob = subjectOf(bobToken);
    ids.alice = await provision(cp.url, aliceToken);
    ids.bob = await provision(cp.url, bobToken);
    ids.alpha = (await cp.admin<{ id: string }>('POST', '/api/v1/projects', { slug: 'alpha', name: 'Alpha' })).id;
    ids.beta = (await cp.admin<{ id: string }>('POST', '/api/v1/projects', { slug: 'beta', name: 'Beta' })).id;
    await cp.admin('PUT', `/api/v1/users/${ids.alice}/permissions`, { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    // bob holds a role key without the product's sign-in key.
    await cp.admin('PUT', `/api/v1/users/${ids.bob}/permissions`, { workspace: ['mcp-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
  });

  afterAll(async () => {
    await proxy?.stop();
    await cp?.close();
  });

  beforeEach(() => {
    proxy.requests.length = 0;
    proxy.down = false;
    proxy.cacheControl = undefined;
  });

  it('reads the single view by subject or user id, by project slug or id, and the grouped view', async () => {
    const c = client();
    expect(await c.effectivePermissions({ subject: alice, project: 'alpha' })).toEqual({
      user_id: ids.alice,
      permissions: ['ai-gateway', 'ai-gateway.operator'],
      source: 'control-plane',
    });
    expect((await c.effectivePermissions({ userId: ids.alice, projectId: ids.beta })).permissions).toEqual(['ai-gateway']);
    expect((await c.effectivePermissions({ subject: alice })).permissions).toEqual(['ai-gateway']);
    expect(await c.groupedPermissions({ subject: alice })).toEqual({
      user_id: ids.alice,
      workspace: ['ai-gateway'],
      projects: { alpha: ['ai-gateway.operator'] },
      source: 'control-plane',
    });
  });

  it("can() refuses a role key the control plane returned without the product's sign-in key", async () => {
    const answer = await client().effectivePermissions({ subject: bob, project: 'alpha' });
    expect(answer.permissions).toContain('ai-gateway.operator');
    expect(can(answer.permissions, 'ai-gateway', 'operator')).toBe(false);
    const aliceAnswer = await client().effectivePermissions({ subject: alice, project: 'alpha' });
    expect(can(aliceAnswer.permissions, 'ai-gateway', 'operator')).toBe(true);
  });

  it('keeps an answer for its max-age (60 s here): repeated lookups make one request', async () => {
    const c = client();
    for (let i = 0; i < 5; i += 1) await c.effectivePermissions({ subject: alice, project: 'alpha' });
    expect(proxy.requestsTo(EFFECTIVE)).toHaveLength(1);
    expect((await c.effectivePermissions({ subject: alice, project: 'alpha' })).source).toBe('cache');
  });

  it('revalidates with If-None-Match once max-age has passed and takes 304 as a renewal', async () => {
    proxy.cacheControl = 'private, max-age=1';
    const c = client();
    const first = await c.effectivePermissions({ subject: alice, project: 'alpha' });
    await c.effectivePermissions({ subject: alice, project: 'alpha' });
    expect(proxy.requestsTo(EFFECTIVE)).toHaveLength(1);
    await sleep(1_100);
    const second = await c.effectivePermissions({ subject: alice, project: 'alpha' });
    const requests = proxy.requestsTo(EFFECTIVE);
    expect(requests).toHaveLength(2);
    expect(requests[1].ifNoneMatch).toMatch(/^"/);
    expect(requests[1].status).toBe(304);
    expect(second).toEqual({ ...first, source: 'control-plane' });
    // Renewed for another max-age: no request.
    expect((await c.effectivePermissions({ subject: alice, project: 'alpha' })).source).toBe('cache');
    expect(proxy.requestsTo(EFFECTIVE)).toHaveLength(2);
  });

  it('sees a change after revalidation (200 with the new keys)', async () => {
    proxy.cacheControl = 'private, max-age=1';
    const c = client();
    expect((await c.effectivePermissions({ subject: bob })).permissions).toEqual(['mcp-gateway']);
    await cp.admin('PUT', `/api/v1/users/${ids.bob}/permissions`, { workspace: ['mcp-gateway', 'ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    try {
      await sleep(1_100);
      expect((await c.effectivePermissions({ subject: bob })).permissions).toEqual(['ai-gateway', 'mcp-gateway']);
      expect(proxy.requestsTo(EFFECTIVE).map((request) => request.status)).toEqual([200, 200]);
    } finally {
      await cp.admin('PUT', `/api/v1/users/${ids.bob}/permissions`, { workspace: ['mcp-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    }
  });

  it('coalesces concurrent identical lookups into one request', async () => {
    const c = client();
    const answers = await Promise.all(Array.from({ length: 10 }, () => c.effectivePermissions({ subject: alice, project: 'alpha' })));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.permissions))).size).toBe(1);
    expect(proxy.requestsTo(EFFECTIVE)).toHaveLength(1);
    await Promise.all([c.effectivePermissions({ subject: alice, project: 'beta' }), c.effectivePermissions({ subject: bob, project: 'beta' })]);
    expect(proxy.requestsTo(EFFECTIVE)).toHaveLength(3);
  });

  it('bounds its cache: the least recently used answer is dropped', async () => {
    const c = client({ maxCacheEntries: 1 });
    await c.effectivePermissions({ subject: alice, project: 'alpha' });
    await c.effectivePermissions({ subject: alice, project: 'beta' });
    await c.effectivePermissions({ subject: alice, project: 'alpha' });
    expect(proxy.requestsTo(EFFECTIVE)).toHaveLength(3);
  });

  it('fails closed when the control plane cannot be reached: no permissions, also after its cached answer expired', async () => {
    proxy.cacheControl = 'private, max-age=1';
    const c = client();
    expect((await c.effectivePermissions({ subject: alice, project: 'alpha' })).permissions).toHaveLength(2);
    proxy.down = true;
    // Within max-age the cached answer is still the answer.
    expect((await c.effectivePermissions({ subject: alice, project: 'alpha' })).source).toBe('cache');
    await sleep(1_100);
    expect(await c.effectivePermissions({ subject: alice, project: 'alpha' })).toEqual({ user_id: '', permissions: [], source: 'unavailable' });
    expect(await client().effectivePermissions({ subject: alice })).toEqual({ user_id: '', permissions: [], source: 'unavailable' });
  });

  it('serves a stale answer for staleIfError seconds when the product opts in, then fails closed', async () => {
    proxy.cacheControl = 'private, max-age=1';
    const c = client({ staleIfError: 1 });
    await c.effectivePermissions({ subject: alice, project: 'alpha' });
    proxy.down = true;
    await sleep(1_100);
    expect(await c.effectivePermissions({ subject: alice, project: 'alpha' })).toEqual({
      user_id: ids.alice,
      permissions: ['ai-gateway', 'ai-gateway.operator'],
      source: 'stale',
    });
    await sleep(1_000);
    expect((await c.effectivePermissions({ subject: alice, project: 'alpha' })).source).toBe('unavailable');
    proxy.down = false;
    expect((await c.effectivePermissions({ subject: alice, project: 'alpha' })).source).toBe('control-plane');
  });

  it('throws NotFound for an unknown subject (not a silent empty set)', async () => {
    await expect(client().effectivePermissions({ subject: 'nobody-ever-signed-in' })).rejects.toBeInstanceOf(ControlPlaneNotFoundError);
  });

  it('finds a project by slug or id, and answers null for one the control plane does not know', async () => {
    const c = client();
    expect(await c.findProject({ slug: 'alpha' })).toEqual(expect.objectContaining({ id: ids.alpha, slug: 'alpha', name: 'Alpha' }));
    expect(await c.findProject({ id: ids.beta })).toEqual(expect.objectContaining({ id: ids.beta, slug: 'beta' }));
    expect(await c.findProject({ slug: 'nope' })).toBeNull();
    expect(await c.findProject({ slug: 'Not A Slug' })).toBeNull();
    expect(await c.findProject({ id: '00000000-0000-4000-8000-000000000000' })).toBeNull();
    proxy.down = true;
    await expect(c.findProject({ slug: 'alpha' })).rejects.toBeInstanceOf(ControlPlaneUnavailableError);
  });

  describe('repositories and the repository token', () => {
    const secret = 'ghs_contract-test-token-value';
    let repositoryId: string;

    beforeAll(async () => {
      repositoryId = (
        await cp.admin<{ id: string }>('POST', `/api/v1/projects/${ids.alpha}/repositories`, {
          source_host: 'github.com',
          owner: 'arbor',
          name: 'payments',
          branch: 'main',
          installation_id: '4242',
        })
      ).id;
      await cp.admin('PUT', `/api/v1/projects/${ids.alpha}/repository-secret`, { value: secret });
    });

    it('reads every page of the repositories', async () => {
      const ledger = await cp.admin<{ id: string }>('POST', `/api/v1/projects/${ids.alpha}/repositories`, {
        source_host: 'github.com',
        owner: 'arbor',
        name: 'ledger',
        branch: 'main',
        installation_id: '4242',
      });
      const pages: string[] = [];
      // Pages of one repository each, so that two are read.
      const paging = client({
        fetch: (input, init) => {
          const url = String(input).replace('limit=500', 'limit=1');
          if (url.includes('/api/v1/repositories')) pages.push(url);
          return fetch(url, init);
        },
      });
      expect((await paging.listRepositories()).map((r) => r.name)).toEqual(['ledger', 'payments']);
      expect(pages).toHaveLength(2);
      await cp.admin('DELETE', `/api/v1/projects/${ids.alpha}/repositories/${ledger.id}`);
    });

    it('lists the repositories, typed', async () => {
      const repositories = await client().listRepositories();
      expect(repositories).toEqual([
        {
          id: repositoryId,
          project_id: ids.alpha,
          project_slug: 'alpha',
          source_host: 'github.com',
          owner: 'arbor',
          name: 'payments',
          full_name: 'github.com/arbor/payments',
          branch: 'main',
          installation_id: '4242',
        },
      ]);
    });

    it('reads the token on every call (never cached)', async () => {
      const c = client();
      for (let i = 0; i < 2; i += 1) {
        expect(await c.getRepositoryToken(ids.alpha)).toEqual({ project_id: ids.alpha, project_slug: 'alpha', value: secret, updated_at: expect.any(String) });
      }
      expect(proxy.requestsTo(`/api/v1/projects/${ids.alpha}/repository-secret/value`)).toHaveLength(2);
    });

    it('maps 404 to ControlPlaneNotFoundError and 403 to ControlPlaneForbiddenError', async () => {
      await expect(client().getRepositoryToken(ids.beta)).rejects.toBeInstanceOf(ControlPlaneNotFoundError);
      await expect(client().getRepositoryToken('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(ControlPlaneNotFoundError);
      // A product misconfigured with a person's credentials: the control plane refuses a non-admin person.
      const aliceToken = await personToken('alice');
      const asAlice = client({
        fetch: (input, init) => {
          const headers = new Headers(init?.headers);
          if (!String(input).includes('openid-connect')) headers.set('authorization', `Bearer ${aliceToken}`);
          return fetch(input, { ...init, headers });
        },
      });
      const refused = asAlice.getRepositoryToken(ids.alpha);
      await expect(refused).rejects.toBeInstanceOf(ControlPlaneForbiddenError);
      await expect(refused).rejects.not.toThrow(secret);
      await expect(asAlice.listRepositories()).rejects.toBeInstanceOf(ControlPlaneForbiddenError);
    });
  });
});
