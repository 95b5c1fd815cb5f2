// Stateful sessions behind a load balancer that knows nothing of Mcp-Session-Id: two gateway
// replicas sharing Redis (MCPGW_REDIS_URL), the official SDK client's requests dealt to them in
// turn. Every request of a session reaches the replica that holds it, streams included; so does a
// 2026-07-28 client's retry carrying the answer a call waits for.
import { Client as DiscoverFirstClient, StreamableHTTPClientTransport as DiscoverFirstTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from '@arbor/testing';
import { northAndSouthRegistry, startGateway, TestGateway, textOf } from './testing/test-gateway';
import { SseUpstream, StreamableUpstream } from './testing/test-upstreams';

describe('stateful sessions on two replicas sharing Redis', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  const replicas: TestGateway[] = [];
  let lone: TestGateway;

  beforeAll(async () => {
    const redisUrl = process.env['TEST_REDIS_URL'];
    if (!redisUrl) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    await Promise.all([north.start(), south.start()]);
    const registry = northAndSouthRegistry(north, south);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      replicas.push(await startGateway(registry, { stateful: true, redisUrl, replicaUrl: `http://127.0.0.1:${port}` }, true, port));
    }
    lone = await startGateway(registry, { stateful: true });
  });

  afterAll(async () => {
    await Promise.all([...replicas, lone].map((gateway) => gateway.close()));
    await Promise.all([north.stop(), south.stop()]);
  });

  /** A load balancer: each request to the next replica, whatever session it belongs to. */
  function roundRobin(targets: readonly TestGateway[]) {
    const served = targets.map(() => 0);
    let next = 0;
    const fetchVia = (url: string | URL, init?: RequestInit) => {
      const index = next++ % targets.length;
      served[index]! += 1;
      const target = new URL(url.toString());
      const replica = new URL(targets[index]!.url);
      target.host = replica.host;
      return fetch(target, init);
    };
    return { fetchVia, served };
  }

  async function client(fetchVia: (url: string | URL, init?: RequestInit) => Promise<Response>): Promise<Client> {
    const c = new Client({ name: 'behind-a-balancer', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
    await c.connect(
      new StreamableHTTPClientTransport(new URL('http://balancer/servers/alpha/mcp'), { fetch: fetchVia, requestInit: { headers: { authorization: 'Bearer alice' } } }),
    );
    return c;
  }

  it('serves a session whichever replica each request reaches: calls, progress, elicitation, the end of the session', async () => {
    const balancer = roundRobin(replicas);
    const c = await client(balancer.fetchVia);
    try {
      expect((await c.listTools()).tools.map((t) => t.name)).toContain('north__echo');
      expect(textOf(await c.callTool({ name: 'add', arguments: { a: 20, b: 22 } }))).toBe('42');
      const progress: number[] = [];
      expect(textOf(await c.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) }))).toBe('counted');
      expect(progress).toEqual([1, 2, 3]);
      // The upstream's question travels on the owner's stream; the answer may arrive at the other replica.
      expect(textOf(await c.callTool({ name: 'ask-user', arguments: {} }))).toBe('user accept: Ada');
      expect(balancer.served.every((count) => count > 2)).toBe(true);
    } finally {
      await c.close();
    }
  });

  it("brings a 2026-07-28 client's retry with its answer to the replica whose call waits for it", async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const call = (replica: TestGateway, params: Record<string, unknown>) =>
      fetch(`${replica.url}/servers/alpha/mcp`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer alice',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'ask-model',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask-model', arguments: {}, _meta: meta, ...params } }),
      }).then(async (r) => ((await r.json()) as { result: Record<string, unknown> }).result);
    const asked = await call(replicas[0]!, {});
    expect(asked).toMatchObject({ resultType: 'input_required', inputRequests: { 'input-1': { method: 'sampling/createMessage' } } });
    const answer = { 'input-1': { role: 'assistant', content: { type: 'text', text: 'from the other replica' }, model: 'm' } };
    expect(await call(replicas[1]!, { requestState: asked['requestState'], inputResponses: answer })).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'model said: from the other replica' }],
    });
    // The official v2 client behind the balancer: its call and its retry land on different replicas.
    const balancer = roundRobin(replicas);
    const discoverFirst = new DiscoverFirstClient({ name: 'v2-behind-a-balancer', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { sampling: {} } });
    discoverFirst.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'test-model' }));
    await discoverFirst.connect(
      new DiscoverFirstTransport(new URL('http://balancer/servers/alpha/mcp'), { fetch: balancer.fetchVia, requestInit: { headers: { authorization: 'Bearer alice' } } }),
    );
    try {
      for (let round = 0; round < 2; round++) expect(textOf(await discoverFirst.callTool({ name: 'ask-model', arguments: {} }))).toBe('model said: hi there');
      expect(balancer.served.every((count) => count > 1)).toBe(true);
    } finally {
      await discoverFirst.close();
    }
  });

  it('keeps a session to the replica that opened it without Redis', async () => {
    const balancer = roundRobin([lone, replicas[0]!]);
    await expect(client(balancer.fetchVia).then((c) => c.listTools())).rejects.toThrow(/Session not found/);
  });
});
