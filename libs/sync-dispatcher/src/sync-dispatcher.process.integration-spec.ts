// The built dispatcher (dist/apps/sync-dispatcher/main.js) and control plane as separate
// processes on one database, with fake products on real HTTP and real tokens. The test target
// builds both apps first; run `npx nx run sync-dispatcher:build` and `control-plane-api:build`
// before running this file with jest directly.
import { DEFAULT_SYNC_PATH } from '@arbor/config';
import { Client } from 'pg';
import { BuiltService, createTestDatabase, personToken, startBuiltService, testIssuer } from '@arbor/testing';
import { FakeProduct } from './testing/fake-product';
import { eventually, openOutboxDatabase, OutboxDatabase } from './testing/outbox-database';
import { traceIdOf, verifiedSyncToken } from './testing/sync-tokens';

const ADMIN_PATH = '/admin/sync/control-plane/projects';
// Short leases and polls so a crashed replica's claims are taken over within seconds.
const FAST = { CP_DISPATCHER_LEASE: '2s', CP_DISPATCHER_REQUEST_TIMEOUT: '1s', CP_DISPATCHER_POLL_INTERVAL: '200ms' };

function dispatcherEnv(databaseUrl: string, products: Record<string, FakeProduct>, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    CP_DATABASE_URL: databaseUrl,
    CP_OIDC_ISSUER_URL: testIssuer(),
    CP_M2M_CLIENT_ID: 'control-plane-m2m',
    CP_M2M_CLIENT_SECRET: 'dev-control-plane-m2m-secret',
    CP_LOG: 'info',
    LOG_FORMAT: 'json',
    ...extra,
  };
  for (const [product, fake] of Object.entries(products)) env[`CP_${product.toUpperCase().replace(/-/g, '_')}_API_URL`] = fake.url;
  return env;
}

const startDispatcher = (env: Record<string, string>) => startBuiltService('sync-dispatcher', 'CP_DISPATCHER_LISTEN_ADDR', env);

/** Lines the dispatcher logged for successful calls. */
function deliveredLines(service: BuiltService): { params?: { deliveries?: number } }[] {
  return service
    .output()
    .split('\n')
    .filter((line) => line.includes('"sync delivered"'))
    .map((line) => JSON.parse(line) as { params?: { deliveries?: number } });
}

describe('the built sync dispatcher', () => {
  const processes: BuiltService[] = [];
  const products: FakeProduct[] = [];
  const product = async (answer?: FakeProduct['answer']) => {
    const started = await FakeProduct.start(answer);
    products.push(started);
    return started;
  };
  const track = (service: BuiltService) => {
    processes.push(service);
    return service;
  };

  afterEach(async () => {
    for (const service of processes.splice(0)) await service.kill('SIGKILL');
    for (const fake of products.splice(0)) await fake.stop().catch(() => undefined);
  });

  it('brings a project created through the control plane API to two products, each on its own path', async () => {
    const database = await createTestDatabase();
    try {
      const ai = await product();
      const mcp = await product();
      // Both start at once on an empty database: the migrations' advisory lock orders them.
      const [controlPlane, dispatcher] = await Promise.all([
        startBuiltService('control-plane-api', 'CP_LISTEN_ADDR', {
          CP_DATABASE_URL: database.url,
          CP_OIDC_ISSUER_URL: testIssuer(),
          CP_OIDC_AUDIENCE: 'control-plane',
          CP_SECRETS_MASTER_KEY: Buffer.alloc(32, 42).toString('base64'),
          CP_LOG: 'off',
        }).then(track),
        startDispatcher(dispatcherEnv(database.url, { 'ai-gateway': ai, 'mcp-gateway': mcp }, { CP_MCP_GATEWAY_SYNC_PATH: ADMIN_PATH })).then(track),
      ]);

      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const created = await fetch(`${controlPlane.url}/api/v1/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await personToken('admin')}`, 'content-type': 'application/json', traceparent },
        body: JSON.stringify({ slug: 'e2e-alpha', name: 'Alpha' }),
      });
      expect(created.status).toBe(201);

      await ai.waitFor(() => ai.requests.length === 1);
      await mcp.waitFor(() => mcp.requests.length === 1);
      const client = new Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query<{ traceparent: string }>('select traceparent from outbox_events');
      await client.end();
      expect(traceIdOf(rows[0].traceparent)).toBe(traceIdOf(traceparent));

      for (const [key, fake, path] of [
        ['ai-gateway', ai, DEFAULT_SYNC_PATH],
        ['mcp-gateway', mcp, ADMIN_PATH],
      ] as const) {
        const [call] = fake.requests;
        expect(call.path).toBe(path);
        expect(call.headers['content-type']).toBe('application/json');
        expect(JSON.parse(call.body)).toEqual({ slugs: ['e2e-alpha'] });
        expect(traceIdOf(call.headers['traceparent'])).toBe(traceIdOf(rows[0].traceparent));
        const claims = await verifiedSyncToken(call.headers['authorization'], key);
        expect(claims['azp']).toBe('control-plane-m2m');
      }

      const metrics = await (await fetch(`${dispatcher.url}/metrics`)).text();
      const delivered = metrics.split('\n').filter((line) => line.startsWith('sync_deliveries_total{') && line.includes('outcome="delivered"'));
      expect(delivered.map((line) => [/product="([^"]+)"/.exec(line)?.[1], line.split(' ').pop()]).sort()).toEqual([
        ['ai-gateway', '1'],
        ['mcp-gateway', '1'],
      ]);
      expect((await fetch(`${dispatcher.url}/readyz`)).status).toBe(200);
      expect(await dispatcher.kill('SIGTERM')).toBe(0);
      expect(await controlPlane.kill('SIGTERM')).toBe(0);
    } finally {
      await database.drop();
    }
  });

  describe('on a shared outbox database', () => {
    let db: OutboxDatabase;
    beforeEach(async () => {
      db = await openOutboxDatabase();
    });
    afterEach(async () => {
      await db.close();
    });

    it('loses nothing when killed with SIGKILL in the middle of a call: the next one takes over after the lease', async () => {
      const ai = await product(() => 'stall');
      const batch = ['k1', 'k2', 'k3', 'k4', 'k5'];
      for (const slug of batch) await db.change([slug]);
      const first = track(await startDispatcher(dispatcherEnv(db.database.url, { 'ai-gateway': ai }, FAST)));
      await ai.waitFor(() => ai.requests.length === 1);
      expect(ai.requests[0].slugs).toEqual(batch);

      expect(await first.kill('SIGKILL')).toBeNull();
      const claimed = await db.deliveries();
      expect(claimed.every((row) => row.state === 'pending' && row.attempts === 0 && row.claimedBy !== null)).toBe(true);
      const leaseEnd = Math.max(...claimed.map((row) => row.claimedUntil!.getTime()));
      await db.change(['after-the-crash']);

      ai.answer = () => 204;
      track(await startDispatcher(dispatcherEnv(db.database.url, { 'ai-gateway': ai }, FAST)));
      const rows = await eventually(
        () => db.deliveries(),
        (all) => all.length === 6 && all.every((row) => row.state === 'delivered'),
      );
      expect(rows.every((row) => row.lastStatus === 204)).toBe(true);
      for (const slug of [...batch, 'after-the-crash']) expect(ai.slugs).toContain(slug);
      // The crashed call's deliveries went out again only once its lease had ended.
      const again = ai.requests.slice(1).filter((request) => request.slugs.includes('k1'));
      expect(again).toHaveLength(1);
      expect(again[0].receivedAt).toBeGreaterThanOrEqual(leaseEnd);
    });

    it('delivers every change to every product with two replicas, never sending a delivery twice at once', async () => {
      const slowly = () => ({ status: 204, afterMs: 40 });
      const ai = await product(slowly);
      const mcp = await product(slowly);
      const env = dispatcherEnv(db.database.url, { 'ai-gateway': ai, 'mcp-gateway': mcp }, FAST);
      const replicas = await Promise.all([startDispatcher(env), startDispatcher(env)]);
      replicas.forEach(track);

      const slugs = Array.from({ length: 60 }, (_, i) => `c${i}`);
      for (const slug of slugs) {
        await db.change([slug]);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await eventually(
        () => db.deliveries(),
        (rows) => rows.length === 120 && rows.every((row) => row.state === 'delivered'),
        20_000,
      );

      for (const fake of [ai, mcp]) {
        expect(fake.overlaps).toEqual([]);
        expect([...fake.slugs].sort()).toEqual([...slugs].sort());
      }
      // Both replicas did part of the work.
      // (Their log lines leave in batches, at least every 100 ms.)
      await eventually(
        async () => replicas.map((replica) => deliveredLines(replica).length),
        (counts) => counts.every((count) => count > 0),
        5_000,
      );
      for (const replica of replicas) expect(deliveredLines(replica).length).toBeGreaterThan(0);
    });

    it('on SIGTERM finishes the call in flight, claims nothing more, and exits 0', async () => {
      const ai = await product(() => ({ status: 204, afterMs: 700 }));
      const dispatcher = track(await startDispatcher(dispatcherEnv(db.database.url, { 'ai-gateway': ai }, { CP_DISPATCHER_POLL_INTERVAL: '200ms' })));
      await db.change(['in-flight']);
      await ai.waitFor(() => ai.requests.length === 1);

      const exited = dispatcher.kill('SIGTERM');
      await db.change(['after-sigterm']);
      expect(await exited).toBe(0);

      const rows = await db.deliveries();
      expect(rows.map((row) => [row.slugs[0], row.state])).toEqual(expect.arrayContaining([['in-flight', 'delivered']]));
      expect(rows.find((row) => row.slugs[0] === 'after-sigterm')?.state ?? 'not fanned out').not.toBe('delivered');
      expect(ai.requests).toHaveLength(1);
    });
  });
});
