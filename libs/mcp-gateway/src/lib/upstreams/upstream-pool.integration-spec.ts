// Upstreams that go down, come back and are slow, as clients of the gateway and the admin API's
// health see them; the gateway itself is never restarted.
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, eventually, InMemoryServerRegistry, startGateway, TestGateway, testServers, textOf, upstreamDefinition } from '../transports/testing/test-gateway';
import { SseUpstream, StreamableUpstream } from '../transports/testing/test-upstreams';

describe('upstream pool', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;
  const clients: Client[] = [];
  const health = (name: string) => gateway.catalogue.health(name)[0];

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    const hasty = { ...upstreamDefinition('hasty', north, 'streamable-http'), timeoutMs: 300, maxConcurrency: 2 };
    // Written to the registry behind its back: the runtime's own guard is what stands in the way.
    const azure = { ...upstreamDefinition('azure', north, 'streamable-http'), url: 'http://168.63.129.16/machine' };
    const registry = new InMemoryServerRegistry(
      [upstreamDefinition('north', north, 'streamable-http'), upstreamDefinition('south', south, 'sse'), hasty, azure],
      [...testServers(), { id: 'hasty', project: 'alpha', name: 'Hasty', selections: [{ upstream: 'hasty', tools: ['slow', 'busy'], resources: [], prompts: [] }] }],
    );
    // Nest's body parser off: the runtime reads (and bounds) the bodies itself here.
    gateway = await startGateway(registry, { stateful: true, pingIntervalMs: 200, maxBodyBytes: 64 * 1024 }, false);
    // Pings this frequent can cut a first listing short on a busy machine: the tests start from listed upstreams.
    await eventually(() => ['north', 'south', 'hasty'].every((u) => gateway.catalogue.items(u).length > 0), 'every upstream listed');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  async function client(path = '/servers/alpha/mcp'): Promise<Client> {
    const c = await connect(gateway.url, path, 'alice');
    clients.push(c);
    return c;
  }

  it('never connects to an upstream on a cloud metadata address, whatever the registry holds', async () => {
    await eventually(() => health('azure')?.state === 'down', 'the azure upstream refused');
    expect(health('azure')?.lastError).toBe('address refused (metadata)');
  });

  it('answers a call to an upstream that is down with a JSON-RPC error naming it, and keeps serving the others', async () => {
    const c = await client();
    await south.stop();
    const failure = c.callTool({ name: 'weather', arguments: { text: 'now' } });
    await expect(failure).rejects.toThrow(/Upstream "south" is unavailable/);
    await expect(failure).rejects.not.toThrow(/upstream-secret|127\.0\.0\.1/);
    expect(health('south')).toMatchObject({ upstream: 'south', state: 'down' });
    expect(health('south').lastError).not.toMatch(/upstream-secret|127\.0\.0\.1/);
    expect(textOf(await c.callTool({ name: 'add', arguments: { a: 20, b: 22 } }))).toBe('42');

    await south.start();
    expect(textOf(await c.callTool({ name: 'weather', arguments: { text: 'later' } }))).toBe('south weather: later');
    expect(health('south').state).toBe('up');
  });

  it('finds out from its pings that an upstream went away and came back', async () => {
    await south.stop();
    await eventually(() => health('south').state === 'down', 'south reported down');
    await south.start();
    await eventually(() => health('south').state === 'up', 'south reported up again');
  });

  it('reopens a session the restarted upstream lost and retries the call once', async () => {
    const c = await client();
    expect(textOf(await c.callTool({ name: 'north__echo', arguments: { text: 'before' } }))).toBe('north: before');
    const before = north.initializes;
    await north.stop();
    await north.start();
    expect(textOf(await c.callTool({ name: 'north__echo', arguments: { text: 'after' } }))).toBe('north: after');
    expect(north.initializes).toBeGreaterThan(before);

    const stateless = await client('/mcp');
    expect(textOf(await stateless.callTool({ name: 'north__add', arguments: { a: 1, b: 2 } }))).toBe('3');
  });

  it('gives up on a call after the upstream timeout and cancels it there', async () => {
    const c = await client('/servers/hasty/mcp');
    await expect(c.callTool({ name: 'slow', arguments: {} })).rejects.toThrow(/Upstream "hasty" did not answer in time/);
    await eventually(() => north.cancelled.includes('slow'), 'the upstream saw the cancellation');
  });

  it('refuses a streamed body growing past the limit with 413', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${gateway.url}/servers/alpha/mcp`, {
        method: 'POST',
        headers: { authorization: 'Bearer alice', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
      req.on('response', (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject);
      // Chunked, so no Content-Length announces the size.
      for (let i = 0; i < 10; i++) req.write('x'.repeat(10 * 1024));
      req.end();
    });
    expect(status).toBe(413);
  });

  it('keeps at most the upstream concurrency limit of calls in flight', async () => {
    const c = await client('/servers/hasty/mcp');
    north.peak = 0;
    const calls = Array.from({ length: 6 }, () => c.callTool({ name: 'busy', arguments: {} }));
    expect((await Promise.all(calls)).map(textOf)).toEqual(Array(6).fill('done'));
    expect(north.peak).toBe(2);
  });
});

describe('an upstream down when a session opens', () => {
  const late = new StreamableUpstream();
  let gateway: TestGateway;
  let client: Client | undefined;

  beforeAll(async () => {
    // Its port is known before anything listens on it; the server id is one alice holds (see GRANTS).
    await late.start();
    await late.stop();
    const registry = new InMemoryServerRegistry(
      [upstreamDefinition('late', late, 'streamable-http')],
      [{ id: 'hasty', project: 'alpha', name: 'Late', selections: [{ upstream: 'late', tools: '*', resources: [], prompts: [] }] }],
    );
    gateway = await startGateway(registry, { stateful: true, pingIntervalMs: 200 });
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await gateway.close();
    await late.stop();
  });

  it('gets its tools on the same session once the upstream comes up, told by a list change', async () => {
    client = await connect(gateway.url, '/servers/hasty/mcp', 'alice');
    let told = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void told++);
    expect((await client.listTools()).tools).toEqual([]);
    await late.start();
    await eventually(() => told > 0, 'the session told its tools changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'at last' } }))).toBe('north: at last');
  });
});
