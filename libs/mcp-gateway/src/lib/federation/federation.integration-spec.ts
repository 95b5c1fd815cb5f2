// What an upstream does reaches the client and back, in stateful mode: sampling and elicitation
// round trips, progress and logging, cancellation, list changes, and one upstream session per
// downstream session.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, Progress, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ClientKind, connect, eventually, northAndSouthRegistry, startGateway, TestGateway, textOf } from '../transports/testing/test-gateway';
import { SseUpstream, StreamableUpstream } from '../transports/testing/test-upstreams';

interface SseEvent {
  id?: string;
  data?: { id?: number; method?: string; params?: { progress?: number }; result?: { content?: { text?: string }[] } };
}

/** Reads an SSE response until `done` holds for the events so far, then lets the stream go. */
async function readEvents(response: Response, done: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  while (!done(events)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffer += value;
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      const data = field('data');
      if (data) events.push({ id: field('id'), data: JSON.parse(data) as SseEvent['data'] });
    }
  }
  await reader.cancel();
  return events;
}

describe('federation in stateful mode', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;
  const clients: Client[] = [];

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    gateway = await startGateway(northAndSouthRegistry(north, south), { stateful: true, wsRelay: true });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  async function client(kind: ClientKind = 'streamable-http', path = '/servers/alpha/mcp'): Promise<Client> {
    const c = await connect(gateway.url, path, 'alice', kind, { sampling: {}, elicitation: {} });
    c.setRequestHandler(CreateMessageRequestSchema, () => ({
      model: 'test-model',
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'hi from the client' },
    }));
    c.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept' as const, content: { name: 'Ada' } }));
    clients.push(c);
    return c;
  }

  const pathFor: Record<ClientKind, string> = {
    'streamable-http': '/servers/alpha/mcp',
    sse: '/servers/alpha/sse',
    websocket: '/servers/alpha/ws',
  };

  describe.each(['streamable-http', 'sse', 'websocket'] as const)('over %s', (kind) => {
    it('relays the upstream asking the client for a completion (sampling) and the answer back', async () => {
      const c = await client(kind, pathFor[kind]);
      expect(textOf(await c.callTool({ name: 'ask-model', arguments: {} }))).toBe('model said: hi from the client');
    });

    it('relays the upstream asking the user (elicitation) and the answer back', async () => {
      const c = await client(kind, pathFor[kind]);
      expect(textOf(await c.callTool({ name: 'ask-user', arguments: {} }))).toBe('user accept: Ada');
    });

    it('lists and calls across both upstreams', async () => {
      const c = await client(kind, pathFor[kind]);
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['north__echo', 'south__echo', 'add', 'weather']));
      expect(textOf(await c.callTool({ name: 'south__echo', arguments: { text: 'hey' } }))).toBe('south echo: hey');
    });
  });

  it('forwards progress under the client own progress token', async () => {
    const c = await client();
    const seen: Progress[] = [];
    const result = await c.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
    expect(textOf(result)).toBe('counted');
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
  });

  it('forwards logging messages the upstream sends during a call', async () => {
    const c = await client();
    const logs: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    await c.setLoggingLevel('debug');
    expect(textOf(await c.callTool({ name: 'log', arguments: {} }))).toBe('logged');
    await eventually(() => logs.includes('hello from north'), 'the log message reached the client');
  });

  it('passes the client cancellation to the upstream', async () => {
    const c = await client();
    const abort = new AbortController();
    const call = c.callTool({ name: 'slow', arguments: {} }, undefined, { signal: abort.signal });
    await north.slowStarted;
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await eventually(() => north.cancelled.includes('slow'), 'the upstream saw the cancellation');
  });

  it('opens one upstream session per downstream session and reuses it for every call', async () => {
    const before = north.initializes;
    const c = await client();
    for (const text of ['one', 'two', 'three']) await c.callTool({ name: 'north__echo', arguments: { text } });
    await c.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    expect(north.initializes - before).toBe(1);
  });

  it('ends the session and its upstream sessions on DELETE', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/servers/alpha/mcp`), {
      requestInit: { headers: { authorization: 'Bearer alice' } },
    });
    const c = new Client({ name: 'deleting', version: '1' });
    await c.connect(transport);
    await c.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const sessionId = transport.sessionId!;
    const withIt = north.openSessions;
    await transport.terminateSession();
    await eventually(() => north.openSessions === withIt - 1, 'its upstream session was closed');
    const after = await fetch(`${gateway.url}/servers/alpha/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer alice',
        'mcp-session-id': sessionId,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
    await c.close();
  });

  it('binds a session to the person who opened it', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer alice' } } });
    const c = new Client({ name: 'alice', version: '1' });
    await c.connect(transport);
    clients.push(c);
    const stolen = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer bob', 'mcp-session-id': transport.sessionId!, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(404);
  });

  it('tells the client when an upstream tools list changed, and lists the new tool', async () => {
    const c = await client();
    let changed = false;
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed = true));
    north.addTool('late-tool');
    await eventually(() => changed, 'tools/list_changed reached the client');
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('late-tool');
  });

  it('resumes a stream with Last-Event-ID, replaying what the client missed', async () => {
    const headers = {
      authorization: 'Bearer alice',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const init = await fetch(`${gateway.url}/servers/alpha/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    await readEvents(init, (events) => events.some((e) => e.data?.id === 1));
    await fetch(`${gateway.url}/servers/alpha/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });

    const call = await fetch(`${gateway.url}/servers/alpha/mcp`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count', arguments: {}, _meta: { progressToken: 'p' } } }),
    });
    const firstRun = await readEvents(call, (events) => events.some((e) => e.data?.id === 2));
    const firstProgress = firstRun.find((e) => e.data?.method === 'notifications/progress')!;

    // The client lost the stream after the first progress event: it resumes from there.
    const resumed = await fetch(`${gateway.url}/servers/alpha/mcp`, { headers: { ...session, 'last-event-id': firstProgress.id! } });
    expect(resumed.status).toBe(200);
    const replayed = await readEvents(resumed, (events) => events.some((e) => e.data?.id === 2));
    expect(replayed.map((e) => e.data?.params?.progress ?? e.data?.result?.content?.[0]?.text)).toEqual([2, 3, 'counted']);
  });

  it('answers a session id it does not know with 404', async () => {
    const answer = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'mcp-session-id': 'nope', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(answer.status).toBe(404);
  });
});
