// MCP clients over Streamable HTTP against the gateway in its default, stateless mode: two
// upstreams federated behind a virtual server and `/mcp`, and what the edge refuses.
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, eventually, northAndSouthRegistry, startGateway, TestGateway, textOf } from './testing/test-gateway';
import { SseUpstream, StreamableUpstream } from './testing/test-upstreams';

const MAX_BODY = 64 * 1024;

/** The one JSON-RPC message of an answer, as sent: a JSON body, or the data of its SSE event. */
async function messageOf(response: Response): Promise<string> {
  const text = await response.text();
  if (response.headers.get('content-type') !== 'text/event-stream') return text;
  return /^data: (.*)$/m.exec(text)?.[1] ?? '';
}

describe('Streamable HTTP, stateless', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;
  const clients: Client[] = [];
  const client = async (path: string, person = 'alice') => {
    const c = await connect(gateway.url, path, person);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    gateway = await startGateway(northAndSouthRegistry(north, south), { maxBodyBytes: MAX_BODY, pageSize: 3 });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer alice', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const initialize = (protocolVersion: string) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  async function allToolNames(c: Client): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    return names.sort();
  }

  it('lists the tools of both upstreams of a virtual server, prefixing only the name they share', async () => {
    const c = await client('/servers/alpha/mcp');
    expect(await allToolNames(c)).toEqual(
      ['add', 'ask-model', 'ask-user', 'busy', 'count', 'log', 'meta', 'north__echo', 'rain', 'slow', 'south__echo', 'tide', 'weather', 'wind'].sort(),
    );
  });

  it('answers a call the upstream refuses exactly as the upstream does, with no second error prefix', async () => {
    const through = await client('/servers/alpha/mcp');
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new SSEClientTransport(new URL(south.url)));
    clients.push(direct);
    const directError = await direct.callTool({ name: 'refuse', arguments: {} }).catch((error: Error) => error);
    const gatewayError = await through.callTool({ name: 'south__refuse', arguments: {} }).catch((error: Error) => error);
    expect(gatewayError).toBeInstanceOf(Error);
    expect((gatewayError as Error).message).toBe((directError as Error).message);
    // On the wire: the upstream's own words.
    const raw = await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'south__refuse', arguments: {} } });
    expect(await raw.json()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'MCP error -32602: Tool refuse not found' } });
    // A tool the upstream does not list, on an upstream whose every tool is selected: its own answer.
    const northDirect = new Client({ name: 'direct', version: '1' });
    await northDirect.connect(new StreamableHTTPClientTransport(new URL(north.url)));
    clients.push(northDirect);
    expect(await through.callTool({ name: 'north__nope', arguments: {} })).toEqual(await northDirect.callTool({ name: 'nope', arguments: {} }));
  });

  it('counts calls by virtual server, upstream, method, tool and outcome, with upstream health, on /metrics', async () => {
    const c = await client('/servers/alpha/mcp');
    await c.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    await c.callTool({ name: 'south__refuse', arguments: {} }).catch(() => undefined);
    await (await client('/mcp')).callTool({ name: 'north__add', arguments: { a: 1, b: 1 } });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    /** The value of the series of `name` whose labels include every one of `labels`. */
    const line = (name: string, labels: string) =>
      metrics
        .split('\n')
        .find((l) => l.startsWith(`${name}{`) && labels.split(',').every((pair) => l.includes(pair)))
        ?.split(' ')
        .at(-1);
    expect(Number(line('arbor_mcpgw_calls_total', 'server="alpha",upstream="north",method="tools/call",tool="add",outcome="ok"'))).toBeGreaterThanOrEqual(1);
    expect(Number(line('arbor_mcpgw_calls_total', 'server="alpha",upstream="south",method="tools/call",tool="(unlisted)",outcome="error"'))).toBeGreaterThanOrEqual(1);
    expect(Number(line('arbor_mcpgw_calls_total', 'server="/mcp",upstream="north",method="tools/call",tool="add",outcome="ok"'))).toBeGreaterThanOrEqual(1);
    expect(line('arbor_mcpgw_call_duration_seconds_count', 'server="alpha",upstream="north",method="tools/call",tool="add"')).toBeDefined();
    expect(line('arbor_mcpgw_upstream_up', 'upstream="north",protocol_version="2025-11-25"')).toBe('1');
    expect(line('arbor_mcpgw_upstream_up', 'upstream="south",protocol_version="2025-11-25"')).toBe('1');
  });

  it("promises only what a stateless answer can deliver: log messages on the call's stream, no list changes or subscriptions", async () => {
    const c = await client('/servers/alpha/mcp');
    expect(c.getServerCapabilities()).toEqual({ tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} });
  });

  it('sends the log messages of a call on its own SSE stream, at the level the caller set, without a session', async () => {
    const c = await client('/servers/alpha/mcp');
    const logs: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    await c.setLoggingLevel('info');
    // The hot path (a plain tools/call) and the SDK path (with a progress token) alike.
    expect(textOf(await c.callTool({ name: 'log', arguments: {} }))).toBe('logged');
    expect(textOf(await c.callTool({ name: 'log', arguments: {} }, undefined, { onprogress: () => undefined }))).toBe('logged');
    // Messages arrive before the answer on the same stream: no waiting needed.
    expect(logs).toEqual(['hello from north', 'hello from north']);
    // Above the message's level, nothing comes; the level holds for this person on this endpoint.
    await c.setLoggingLevel('error');
    expect(textOf(await c.callTool({ name: 'log', arguments: {} }))).toBe('logged');
    expect(logs).toHaveLength(2);
    // The level is not taken to another endpoint, and a call that logs nothing is answered in JSON.
    const union = await client('/mcp');
    const unionLogs: unknown[] = [];
    union.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void unionLogs.push(n.params.data));
    await union.callTool({ name: 'north__log', arguments: {} });
    expect(unionLogs).toEqual(['hello from north']);
    const plain = await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } });
    expect(plain.headers.get('content-type')).toBe('application/json');
    await c.setLoggingLevel('debug');
  });

  it('sends progress on the request’s own SSE stream, without a session', async () => {
    const c = await client('/servers/alpha/mcp');
    const progress: number[] = [];
    const result = await c.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(textOf(result)).toBe('counted');
    expect(progress).toEqual([1, 2, 3]);
  });

  it('cancels a call upstream when the client sends notifications/cancelled in a POST of its own', async () => {
    for (const progress of [false, true]) {
      const c = await client('/servers/alpha/mcp');
      const before = north.cancelled.length;
      const started = north.slowStarted;
      const abort = new AbortController();
      // With a progress token the call takes the SDK path, without one the hot path: both cancel.
      const call = c.callTool({ name: 'slow', arguments: {} }, undefined, { signal: abort.signal, ...(progress ? { onprogress: () => undefined } : {}) });
      await started;
      abort.abort('changed my mind');
      await expect(call).rejects.toThrow();
      await eventually(() => north.cancelled.length > before, `the slow call cancelled upstream (progress: ${progress})`);
    }
  });

  it('pages lists toward the client with its own cursor', async () => {
    const c = await client('/servers/alpha/mcp');
    const first = await c.listTools();
    expect(first.tools).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await c.listTools({ cursor: first.nextCursor! });
    expect(second.tools.map((t) => t.name)).not.toContain(first.tools[0].name);
  });

  it('calls tools on either upstream, the prefixed names reaching the right one', async () => {
    const c = await client('/servers/alpha/mcp');
    expect(textOf(await c.callTool({ name: 'north__echo', arguments: { text: 'hi' } }))).toBe('north: hi');
    expect(textOf(await c.callTool({ name: 'south__echo', arguments: { text: 'hi' } }))).toBe('south echo: hi');
    expect(textOf(await c.callTool({ name: 'weather', arguments: { text: 'today' } }))).toBe('south weather: today');
    expect(textOf(await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
  });

  it('reads resources and templates and gets prompts through the virtual server', async () => {
    const c = await client('/servers/alpha/mcp');
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['note://north/readme']);
    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['note://north/{id}']);
    expect(await c.readResource({ uri: 'note://north/readme' })).toMatchObject({ contents: [{ uri: 'note://north/readme', text: 'north readme' }] });
    expect(await c.readResource({ uri: 'note://north/7' })).toMatchObject({ contents: [{ text: 'note 7' }] });
    const prompt = await c.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages[0].content).toMatchObject({ text: 'Hello Ada' });
  });

  it('passes _meta both ways and completes prompt arguments', async () => {
    const c = await client('/servers/alpha/mcp');
    const result = await c.callTool({ name: 'meta', arguments: {}, _meta: { trace: 'abc' } });
    expect(textOf(result)).toBe('"abc"');
    expect(result._meta).toEqual({ from: 'north' });
    const completion = await c.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
    expect(completion.completion.values).toEqual(['Ada', 'Alan']);
  });

  it('shows on /mcp every server the caller may use, every name prefixed by its upstream', async () => {
    const alice = await client('/mcp');
    const names = await allToolNames(alice);
    expect(names).toEqual(expect.arrayContaining(['north__add', 'north__echo', 'south__echo', 'south__weather']));
    expect(names.every((n) => n.startsWith('north__') || n.startsWith('south__'))).toBe(true);
    expect(textOf(await alice.callTool({ name: 'south__tide', arguments: { text: 'high' } }))).toBe('south tide: high');
    const { resources } = await alice.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['mcpgw://north/note://north/readme']);
    expect(await alice.readResource({ uri: 'mcpgw://north/note://north/readme' })).toMatchObject({
      contents: [{ uri: 'mcpgw://north/note://north/readme', text: 'north readme' }],
    });
    expect((await alice.listPrompts()).prompts.map((p) => p.name)).toEqual(['north__greet']);

    const bob = await client('/mcp', 'bob');
    expect(await allToolNames(bob)).toEqual(['north__add']);
  });

  it('answers a tool outside the selection as unknown', async () => {
    const bob = await client('/servers/narrow/mcp', 'bob');
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(['add']);
    await expect(bob.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toThrow(/echo not found/);
  });

  it('answers tools/call, tools/list and ping on the hot path as the SDK server answers them', async () => {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 'list', method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'cDoz' } },
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 'not a cursor' } },
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'meta', arguments: {}, _meta: { trace: 't' } } },
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'nowhere', arguments: {} } },
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'south__echo', arguments: { text: 'x' } } },
      // Shapes the hand check leaves to the schemas: members they drop, ids and arguments they refuse.
      { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { arguments: { b: 3, a: 2 }, name: 'add', extra: true } },
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'add', arguments: [2, 3] } },
      { jsonrpc: '2.0', id: 12.5, method: 'ping' },
      { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' },
      { jsonrpc: '2.0', id: 13, method: 'ping', params: {} },
      { jsonrpc: '2.0', id: 14, method: 'tools/list', params: { cursor: 7 } },
      { jsonrpc: '2.0', id: 15, method: 'tools/call', params: { name: 'add' } },
    ];
    for (const request of requests) {
      // A batch of one takes the SDK server's way and is answered as a single message too.
      const [hot, sdk] = await Promise.all([post('/servers/alpha/mcp', request), post('/servers/alpha/mcp', [request])]);
      expect(hot.status).toBe(sdk.status);
      // Byte for byte, members in the same order. A call whose upstream may log is on an SSE stream
      // on the SDK's way (it cannot tell beforehand); the hot path opens one only when a message comes.
      expect(await messageOf(hot)).toBe(await messageOf(sdk));
    }
    const narrow = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: {} } };
    const [hot, sdk] = await Promise.all([
      post('/servers/narrow/mcp', narrow, { authorization: 'Bearer bob' }),
      post('/servers/narrow/mcp', [narrow], { authorization: 'Bearer bob' }),
    ]);
    expect(JSON.parse(await messageOf(hot))).toEqual(JSON.parse(await messageOf(sdk)));
  });

  it('negotiates each supported version and answers the default for an unknown one', async () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const answer = await post('/servers/alpha/mcp', initialize(version));
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(version);
    }
    for (const version of ['2024-10-07', '1999-01-01']) {
      const answer = await post('/servers/alpha/mcp', initialize(version));
      expect(((await answer.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
    }
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer alice' } } });
    const sdk = new Client({ name: 'sdk', version: '1' });
    await sdk.connect(transport);
    clients.push(sdk);
    expect(transport.protocolVersion).toBe('2025-11-25');
  });

  it('refuses an unsupported MCP-Protocol-Version header with 400 listing the supported versions', async () => {
    for (const version of ['1999-01-01', '2024-10-07']) {
      const answer = await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': version });
      expect(answer.status).toBe(400);
      const body = (await answer.json()) as { error: { code: number; message: string; data: { supported: string[]; requested: string } } };
      expect(body.error.data).toEqual({ supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: version });
      expect(body.error.code).toBe(-32022);
      expect(body.error.message).toContain('2024-11-05');
    }
  });

  it('maps refused access to HTTP: 401 without a token, 403 outside the grant, 404 for an unknown server', async () => {
    const anonymous = await post('/servers/alpha/mcp', initialize('2025-11-25'), { authorization: '' });
    expect(anonymous.status).toBe(401);
    // At the default public URL (MCPGW_PUBLIC_URL), whatever address the request came to.
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp-gateway", resource_metadata="http://localhost:4444/.well-known/oauth-protected-resource/servers/alpha/mcp"`,
    );
    expect(await anonymous.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'Sign in first', data: { code: 'unauthenticated' } }, id: null });

    const stranger = await post('/mcp', initialize('2025-11-25'), { authorization: 'Bearer mallory' });
    expect(stranger.status).toBe(403);

    expect((await post('/servers/alpha/mcp', initialize('2025-11-25'), { authorization: 'Bearer bob' })).status).toBe(403);
    expect((await post('/servers/nowhere/mcp', initialize('2025-11-25'))).status).toBe(404);
    await expect(connect(gateway.url, '/servers/alpha/mcp', 'bob')).rejects.toThrow(/Forbidden: no access to server alpha/);
  });

  it('refuses a foreign Origin with 403 and accepts its own', async () => {
    const foreign = await post('/mcp', initialize('2025-11-25'), { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const own = await post('/mcp', initialize('2025-11-25'), { origin: gateway.url });
    expect(own.status).toBe(200);
  });

  it('refuses a page whose site name was rebound to the gateway (Host and Origin both foreign)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(initialize('2025-11-25'));
      const req = request(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          host: 'evil.example.com',
          origin: 'http://evil.example.com',
          authorization: 'Bearer alice',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      });
      req
        .on('response', (res) => resolve(res.resume().statusCode ?? 0))
        .on('error', reject)
        .end(body);
    });
    expect(status).toBe(403);
  });

  it('refuses a body above the limit with 413', async () => {
    const big = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { pad: 'x'.repeat(MAX_BODY) } } };
    const answer = await post('/servers/alpha/mcp', big);
    expect(answer.status).toBe(413);
  });

  it('refuses a compressed body with 415, as the AI gateway does, instead of reading gzip as JSON', async () => {
    const answer = await post('/servers/alpha/mcp', '\u001f\u008b', { 'content-encoding': 'gzip' });
    expect(answer.status).toBe(415);
  });

  it('is served below Express, reading its own body: a broken body is a JSON-RPC parse error', async () => {
    const answer = await post('/servers/alpha/mcp', '{"jsonrpc": "2.0", "id": 1,');
    expect(answer.headers.get('x-powered-by')).toBeNull(); // Express never saw it
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    // The paths Express matched before: any letter case, a trailing slash.
    expect((await post('/MCP/', { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(200);
    expect((await post('/servers/alpha/mcp/', { jsonrpc: '2.0', id: 3, method: 'ping' })).status).toBe(200);
    expect((await post('/servers/alpha/beta/mcp', { jsonrpc: '2.0', id: 4, method: 'ping' })).status).toBe(404);
  });

  it('answers every other method as before: OPTIONS too, the gateway has no CORS preflight', async () => {
    const options = await fetch(`${gateway.url}/mcp`, { method: 'OPTIONS', headers: { authorization: 'Bearer alice', origin: gateway.url } });
    expect(options.status).toBe(405);
    expect(options.headers.get('allow')).toBe('POST');
    expect((await fetch(`${gateway.url}/mcp`, { method: 'OPTIONS' })).status).toBe(401);
  });

  it('serves no WebSocket relay unless it is turned on', async () => {
    await expect(connect(gateway.url, '/ws', 'alice', 'websocket')).rejects.toBeDefined();
  });

  it('has no session to open a stream on', async () => {
    const answer = await fetch(`${gateway.url}/mcp`, { headers: { accept: 'text/event-stream', authorization: 'Bearer alice' } });
    expect(answer.status).toBe(405);
  });

  it('keeps the catalogue of both upstreams for the admin API, healthy', async () => {
    expect(gateway.catalogue.health().map((h) => [h.upstream, h.state])).toEqual([
      ['north', 'up'],
      ['south', 'up'],
    ]);
    expect(gateway.catalogue.items('south').map((i) => i.name)).toEqual(['echo', 'weather', 'tide', 'wind', 'rain']);
    expect(gateway.catalogue.items('north')).toEqual(
      expect.arrayContaining([
        { upstream: 'north', kind: 'resource-template', name: 'note://north/{id}', description: 'A note' },
        { upstream: 'north', kind: 'prompt', name: 'greet', description: 'Greets' },
      ]),
    );
  });
});
