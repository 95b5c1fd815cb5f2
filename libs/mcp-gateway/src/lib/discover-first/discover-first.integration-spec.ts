// The 2026-07-28 revision beside the older versions on the same endpoints: the official v2 client
// (`@modelcontextprotocol/client`) and the v1 SDK client side by side against the gateway in its
// default mode, with two upstreams of the older versions behind it, and what the edge refuses.
import { Client as DiscoverFirstClient, StreamableHTTPClientTransport as DiscoverFirstTransport } from '@modelcontextprotocol/client';
import { Client as HandshakeClient } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, eventually, northAndSouthRegistry, startGateway, TestGateway, textOf } from '../transports/testing/test-gateway';
import { SseUpstream, StreamableUpstream } from '../transports/testing/test-upstreams';

const DISCOVER_FIRST = '2026-07-28';

describe('MCP 2026-07-28 beside the older versions (stateless gateway)', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    gateway = await startGateway(northAndSouthRegistry(north, south), { pageSize: 5 });
  });

  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  async function discoverFirstClient(path: string, person = 'alice'): Promise<DiscoverFirstClient> {
    // 'auto': probe with server/discover and stay in the new era when the server speaks it.
    const client = new DiscoverFirstClient({ name: 'v2-client', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new DiscoverFirstTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${person}` } } }));
    closers.push(() => client.close());
    return client;
  }

  async function handshakeClient(path: string): Promise<HandshakeClient> {
    const client = await connect(gateway.url, path, 'alice');
    closers.push(() => client.close());
    return client;
  }

  const meta = (version = DISCOVER_FIRST) => ({
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  });
  const discoverFirstHeaders = (method: string, name?: string): Record<string, string> => ({
    'mcp-protocol-version': DISCOVER_FIRST,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer alice', ...headers },
      body: JSON.stringify(body),
    });
  const callBody = (name: string, args: Record<string, unknown>, extraMeta: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { ...meta(), ...extraMeta } },
  });

  async function allToolNames(client: { listTools(params?: { cursor?: string }): Promise<{ tools: { name: string }[]; nextCursor?: string }> }) {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    return names;
  }

  it('serves the v2 client in the 2026-07-28 era, with no initialize and no session', async () => {
    const client = await discoverFirstClient('/servers/alpha/mcp');
    expect(client.getNegotiatedProtocolVersion()).toBe(DISCOVER_FIRST);
    const discovered = await client.discover();
    expect(discovered.supportedVersions).toEqual([DISCOVER_FIRST, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    expect(discovered.capabilities).toEqual({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} });
  });

  it("sends a call's log messages on its own stream to a request that names a log level, and none otherwise", async () => {
    const withLevel = await post('/servers/alpha/mcp', callBody('log', {}, { 'io.modelcontextprotocol/logLevel': 'info' }), discoverFirstHeaders('tools/call', 'log'));
    expect(withLevel.headers.get('content-type')).toBe('text/event-stream');
    const events = [...(await withLevel.text()).matchAll(/^data: (.*)$/gm)].map(
      (m) => JSON.parse(m[1] ?? '') as { method?: string; params?: { data?: unknown }; result?: unknown },
    );
    expect(events.map((e) => e.method ?? 'answer')).toEqual(['notifications/message', 'answer']);
    expect(events[0]?.params?.data).toBe('hello from north');
    // Above the message's level, or with no level named, the answer comes alone, in JSON.
    for (const extraMeta of [{ 'io.modelcontextprotocol/logLevel': 'error' }, {}]) {
      const quiet = await post('/servers/alpha/mcp', callBody('log', {}, extraMeta), discoverFirstHeaders('tools/call', 'log'));
      expect(quiet.headers.get('content-type')).toBe('application/json');
      expect(((await quiet.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: 'text', text: 'logged' }]);
    }
  });

  it('lists and calls the tools of both upstreams for a v2 client, paging in a stable order, as a v1 client sees them', async () => {
    const discoverFirst = await discoverFirstClient('/servers/alpha/mcp');
    expect(discoverFirst.getNegotiatedProtocolVersion()).toBe(DISCOVER_FIRST);
    const handshake = await handshakeClient('/servers/alpha/mcp');
    const names = await allToolNames(discoverFirst);
    expect(names).toEqual(await allToolNames(handshake));
    expect(names).toEqual(await allToolNames(discoverFirst));
    expect(names).toContain('north__echo');
    expect(textOf(await discoverFirst.callTool({ name: 'north__echo', arguments: { text: 'hi' } }))).toBe('north: hi');
    expect(textOf(await discoverFirst.callTool({ name: 'south__echo', arguments: { text: 'hi' } }))).toBe('south echo: hi');
    expect(textOf(await discoverFirst.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
  });

  it('prefixes every name on /mcp for a v2 client too', async () => {
    const discoverFirst = await discoverFirstClient('/mcp');
    expect(await allToolNames(discoverFirst)).toEqual(expect.arrayContaining(['north__add', 'south__weather']));
    expect(textOf(await discoverFirst.callTool({ name: 'north__add', arguments: { a: 1, b: 1 } }))).toBe('2');
  });

  it('reads resources and templates, gets prompts and completes their arguments for a v2 client', async () => {
    const discoverFirst = await discoverFirstClient('/servers/alpha/mcp');
    const { resources } = await discoverFirst.listResources();
    expect(resources.map((r) => r.uri)).toContain('note://north/readme');
    const read = await discoverFirst.readResource({ uri: 'note://north/readme' });
    expect(read.contents).toEqual([expect.objectContaining({ uri: 'note://north/readme', text: 'north readme' })]);
    const { resourceTemplates } = await discoverFirst.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('note://north/{id}');
    expect((await discoverFirst.readResource({ uri: 'note://north/7' })).contents).toEqual([expect.objectContaining({ text: 'note 7' })]);
    const { prompts } = await discoverFirst.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('greet');
    const prompt = await discoverFirst.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Ada' });
    const completion = await discoverFirst.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
    expect(completion.completion.values).toEqual(['Ada', 'Alan']);
  });

  it('marks every result with resultType, the server it came from and honest cache hints', async () => {
    const list = await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }, discoverFirstHeaders('tools/list'));
    expect(list.status).toBe(200);
    const listed = (await list.json()) as { result: Record<string, unknown> };
    expect(listed.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'Alpha tools' } } });

    const call = await post('/servers/alpha/mcp', callBody('add', { a: 1, b: 2 }), discoverFirstHeaders('tools/call', 'add'));
    expect(((await call.json()) as { result: Record<string, unknown> }).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: '3' }] });
  });

  it('answers a v1 client and a v2 request on the same endpoint one after the other', async () => {
    const handshake = await handshakeClient('/servers/alpha/mcp');
    expect(textOf(await handshake.callTool({ name: 'add', arguments: { a: 4, b: 4 } }))).toBe('8');
    const discoverFirst = await post('/servers/alpha/mcp', callBody('add', { a: 5, b: 5 }), discoverFirstHeaders('tools/call', 'add'));
    expect(((await discoverFirst.json()) as { result: Record<string, unknown> }).result).toMatchObject({ content: [{ text: '10' }] });
    const older = await post(
      '/servers/alpha/mcp',
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'add', arguments: { a: 6, b: 6 } } },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    const olderBody = (await older.json()) as { result: Record<string, unknown> };
    expect(olderBody.result).toMatchObject({ content: [{ text: '12' }] });
    expect(olderBody.result['resultType']).toBeUndefined();
  });

  it('sends progress on the request’s own SSE stream before the answer', async () => {
    const answer = await post('/servers/alpha/mcp', callBody('count', {}, { progressToken: 'p1' }), discoverFirstHeaders('tools/call', 'count'));
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const events = (await answer.text())
      .split('\n\n')
      .filter((e) => e.includes('data: '))
      .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { method?: string; params?: { progress: number }; result?: unknown });
    expect(events.filter((e) => e.method === 'notifications/progress').map((e) => e.params?.progress)).toEqual([1, 2, 3]);
    expect(events.at(-1)?.result).toMatchObject({ resultType: 'complete', content: [{ text: 'counted' }] });
  });

  it('cancels the call upstream when the client closes the response stream', async () => {
    const before = north.cancelled.length;
    const started = north.slowStarted;
    const abort = new AbortController();
    const pending = fetch(`${gateway.url}/servers/alpha/mcp`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer alice', ...discoverFirstHeaders('tools/call', 'slow') },
      body: JSON.stringify(callBody('slow', {})),
    });
    await started;
    abort.abort();
    await expect(pending).rejects.toThrow();
    await eventually(() => north.cancelled.length > before, 'the upstream call cancelled');
    expect(north.cancelled.at(-1)).toBe('slow');
  });

  it('carries the list changes a client opted in to on its subscriptions/listen stream', async () => {
    const abort = new AbortController();
    const answer = await fetch(`${gateway.url}/servers/alpha/mcp`, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer alice',
        ...discoverFirstHeaders('subscriptions/listen'),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['note://north/readme'] }, _meta: meta() },
      }),
    });
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const nextEvent = async () => {
      while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
      const event = text.slice(0, text.indexOf('\n\n'));
      text = text.slice(text.indexOf('\n\n') + 2);
      return JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { method: string; params: Record<string, unknown> };
    };
    // Resource updates do not reach a client without a session: not acknowledged.
    expect(await nextEvent()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } },
    });
    north.addTool('added-later');
    expect(await nextEvent()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } } });
    abort.abort();
    const discoverFirst = await discoverFirstClient('/servers/alpha/mcp');
    expect(await allToolNames(discoverFirst)).toContain('added-later');
  });

  it('checks Mcp-Method and Mcp-Name against the body: 400 with HeaderMismatch (-32020)', async () => {
    const cases: Record<string, string>[] = [
      { 'mcp-protocol-version': DISCOVER_FIRST, 'mcp-method': 'tools/list', 'mcp-name': 'add' },
      { 'mcp-protocol-version': DISCOVER_FIRST, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
      { 'mcp-protocol-version': DISCOVER_FIRST, 'mcp-method': 'tools/call' },
      { 'mcp-protocol-version': DISCOVER_FIRST, 'mcp-name': 'add' },
      { 'mcp-method': 'tools/call', 'mcp-name': 'add' },
      { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/call', 'mcp-name': 'add' },
    ];
    for (const headers of cases) {
      const answer = await post('/servers/alpha/mcp', callBody('add', { a: 1, b: 1 }), headers);
      expect({ headers, status: answer.status }).toEqual({ headers, status: 400 });
      expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(-32020);
    }
    // A name outside plain ASCII travels Base64-encoded, and is compared decoded.
    const encoded = await post('/servers/alpha/mcp', callBody('add', { a: 1, b: 1 }), discoverFirstHeaders('tools/call', `=?base64?${Buffer.from('add').toString('base64')}?=`));
    expect(encoded.status).toBe(200);
  });

  it('quotes what was sent only as a 64-character excerpt, however long: a megabyte method or name', async () => {
    const huge = 'm'.repeat(1_000_000);
    const excerpt = `${'m'.repeat(64)}…`;
    const answers = [
      // Worded by the SDK's classifier (the header names another method), then by the gateway (no header at all).
      await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 1, method: huge, params: { _meta: meta() } }, discoverFirstHeaders('tools/list')),
      await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 2, method: huge, params: { _meta: meta() } }, { 'mcp-protocol-version': DISCOVER_FIRST }),
      await post(
        '/servers/alpha/mcp',
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: huge, arguments: {}, _meta: meta() } },
        discoverFirstHeaders('tools/call', 'add'),
      ),
      // A name short enough for its header, long enough to matter: the unknown tool is answered in-band.
      await post('/servers/alpha/mcp', callBody('m'.repeat(10_000), {}), discoverFirstHeaders('tools/call', 'm'.repeat(10_000))),
    ];
    for (const answer of answers) {
      const text = await answer.text();
      expect(text.length).toBeLessThan(1_000);
      expect(text).toContain(excerpt);
      expect(text).not.toContain('m'.repeat(65));
    }
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 200]);
  });

  it('refuses GET and DELETE of the 2026-07-28 era with 405: it is POST only', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${gateway.url}/servers/alpha/mcp`, { method, headers: { authorization: 'Bearer alice', 'mcp-protocol-version': DISCOVER_FIRST } });
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });

  it('answers an unsupported version with 400 and UnsupportedProtocolVersion (-32022) listing every version', async () => {
    const inBody = await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta('2099-01-01') } }, { 'mcp-method': 'tools/list' });
    expect(inBody.status).toBe(400);
    expect(await inBody.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32022,
        message: expect.stringContaining('2099-01-01'),
        data: { supported: [DISCOVER_FIRST, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '2099-01-01' },
      },
    });
    const inHeader = await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(inHeader.status).toBe(400);
    expect(await inHeader.json()).toMatchObject({
      id: 4,
      error: { code: -32022, data: { supported: expect.arrayContaining([DISCOVER_FIRST, '2024-11-05']), requested: '1999-01-01' } },
    });
  });

  it('answers a method the revision does not have with 404 Method not found, and an unknown tool in-band', async () => {
    const ping = await post('/servers/alpha/mcp', { jsonrpc: '2.0', id: 5, method: 'ping', params: { _meta: meta() } }, discoverFirstHeaders('ping'));
    expect(ping.status).toBe(404);
    expect(((await ping.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const unknown = await post('/servers/alpha/mcp', callBody('nope', {}), discoverFirstHeaders('tools/call', 'nope'));
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as { error: { code: number; message: string } }).error).toEqual({ code: -32602, message: 'Tool nope not found' });
  });

  it('keeps refusing a server outside the grant for a v2 client', async () => {
    const answer = await post('/servers/alpha/mcp', callBody('add', {}), { ...discoverFirstHeaders('tools/call', 'add'), authorization: 'Bearer bob' });
    expect(answer.status).toBe(403);
  });
});

describe('MCP 2026-07-28 beside stateful sessions (USE_STATEFUL_SESSIONS=true)', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    gateway = await startGateway(northAndSouthRegistry(north, south), { stateful: true });
  });

  afterAll(async () => {
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  it('serves a v2 client without a session while a v1 client keeps its own', async () => {
    const discoverFirst = new DiscoverFirstClient({ name: 'v2-client', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const transport = new DiscoverFirstTransport(new URL(`${gateway.url}/servers/alpha/mcp`), { requestInit: { headers: { authorization: 'Bearer alice' } } });
    await discoverFirst.connect(transport);
    const handshake = await connect(gateway.url, '/servers/alpha/mcp', 'alice');
    try {
      expect(discoverFirst.getNegotiatedProtocolVersion()).toBe(DISCOVER_FIRST);
      expect(transport.sessionId).toBeUndefined();
      expect(textOf(await discoverFirst.callTool({ name: 'add', arguments: { a: 20, b: 22 } }))).toBe('42');
      expect(textOf(await handshake.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
      expect(handshake.transport?.sessionId).toEqual(expect.any(String));
    } finally {
      await Promise.all([discoverFirst.close(), handshake.close()]);
    }
  });
});
