// Upstreams of both eras behind one virtual server: `east` speaks only the 2026-07-28 revision (the
// v2 SDK's McpServer), `north` the older versions. Old clients reach the new server and new
// clients the old one through the same gateway, input requests included.
import { Client as DiscoverFirstClient, StreamableHTTPClientTransport as DiscoverFirstTransport } from '@modelcontextprotocol/client';
import { ElicitRequestSchema, ReadResourceResult, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, InMemoryServerRegistry, startGateway, TestGateway, textOf, upstreamDefinition } from '../transports/testing/test-gateway';
import { EAST_STATUS_URI, DiscoverFirstUpstream, StreamableUpstream } from '../transports/testing/test-upstreams';

function textOfResource(result: ReadResourceResult): string | undefined {
  const [first] = result.contents;
  return first && 'text' in first ? first.text : undefined;
}

describe.each([false, true])('upstreams of both eras (stateful sessions: %s)', (stateful) => {
  const east = new DiscoverFirstUpstream();
  const north = new StreamableUpstream();
  let gateway: TestGateway;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    await Promise.all([east.start(), north.start()]);
    const registry = new InMemoryServerRegistry(
      [upstreamDefinition('east', east, 'streamable-http'), upstreamDefinition('north', north, 'streamable-http')],
      [
        {
          id: 'alpha',
          project: 'alpha',
          name: 'Both eras',
          selections: [
            { upstream: 'east', tools: '*', resources: '*', prompts: '*' },
            { upstream: 'north', tools: ['add', 'count', 'ask-model'], resources: [], prompts: [] },
          ],
        },
      ],
    );
    gateway = await startGateway(registry, { stateful });
  });

  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await gateway.close();
    await Promise.all([east.stop(), north.stop()]);
  });

  async function discoverFirstClient(): Promise<DiscoverFirstClient> {
    const client = new DiscoverFirstClient(
      { name: 'v2-client', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} }, sampling: {} } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'test-model' }));
    await client.connect(new DiscoverFirstTransport(new URL(`${gateway.url}/servers/alpha/mcp`), { requestInit: { headers: { authorization: 'Bearer alice' } } }));
    closers.push(() => client.close());
    return client;
  }

  it('speaks the 2026-07-28 revision to an upstream that answers server/discover, initialize to the others, and says which', async () => {
    const client = await connect(gateway.url, '/servers/alpha/mcp', 'alice');
    closers.push(() => client.close());
    await client.listTools();
    expect(gateway.catalogue.health('east')[0]).toMatchObject({ state: 'up', protocolVersion: '2026-07-28' });
    expect(gateway.catalogue.health('north')[0]).toMatchObject({ state: 'up', protocolVersion: '2025-11-25' });
    expect(east.methods).not.toContain('initialize');
    expect(east.methods).toContain('server/discover');
  });

  it('lets a v1 client call a 2026-07-28 upstream and a v2 client call an upstream of the older versions', async () => {
    const handshake = await connect(gateway.url, '/servers/alpha/mcp', 'alice');
    closers.push(() => handshake.close());
    expect((await handshake.listTools()).tools.map((t) => t.name).sort()).toEqual(['add', 'ask-model', 'ask-user', 'chatty', 'count', 'echo', 'route']);
    expect(textOf(await handshake.callTool({ name: 'echo', arguments: { text: 'old to new' } }))).toBe('east: old to new');

    const discoverFirst = await discoverFirstClient();
    expect(textOf(await discoverFirst.callTool({ name: 'echo', arguments: { text: 'new to new' } }))).toBe('east: new to new');
    expect(textOf(await discoverFirst.callTool({ name: 'add', arguments: { a: 2, b: 40 } }))).toBe('42');
  });

  it('checks a v2 client’s Mcp-Param-* headers against the body, and sends them to a 2026-07-28 upstream for every client', async () => {
    // The v2 client mirrors x-mcp-header arguments itself; a v1 client knows no such headers: the gateway adds them upstream.
    const discoverFirst = await discoverFirstClient();
    await discoverFirst.listTools();
    expect(textOf(await discoverFirst.callTool({ name: 'route', arguments: { region: 'eu-west' } }))).toBe('east routes to eu-west');
    const handshake = await connect(gateway.url, '/servers/alpha/mcp', 'alice');
    closers.push(() => handshake.close());
    expect(textOf(await handshake.callTool({ name: 'route', arguments: { region: 'zürich' } }))).toBe('east routes to zürich');
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const call = (headers: Record<string, string>) =>
      fetch(`${gateway.url}/servers/alpha/mcp`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer alice',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'route',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'route', arguments: { region: 'eu' }, _meta: meta } }),
      });
    for (const wrong of [{} as Record<string, string>, { 'mcp-param-region': 'us' }, { 'mcp-param-region': '=?base64?not base64?=' }]) {
      const refused = await call(wrong);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ id: 5, error: { code: -32020, message: expect.stringContaining('Mcp-Param-Region') } });
    }
    for (const right of ['eu', `=?base64?${Buffer.from('eu').toString('base64')}?=`]) {
      const accepted = await call({ 'mcp-param-region': right });
      expect(accepted.status).toBe(200);
      expect(await accepted.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'east routes to eu' }] } });
    }
  });

  it('passes a 2026-07-28 upstream’s log messages to a v2 client that names a log level, on the call’s own stream', async () => {
    const discoverFirst = await discoverFirstClient();
    expect((await discoverFirst.discover()).capabilities.logging).toEqual({});
    const call = (extraMeta: Record<string, unknown>) =>
      fetch(`${gateway.url}/servers/alpha/mcp`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer alice',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'chatty',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/call',
          params: {
            name: 'chatty',
            arguments: {},
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, ...extraMeta },
          },
        }),
      });
    const logged = await call({ 'io.modelcontextprotocol/logLevel': 'debug' });
    expect(logged.headers.get('content-type')).toBe('text/event-stream');
    const events = [...(await logged.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] ?? '') as { method?: string; params?: { data?: unknown } });
    expect(events.map((e) => e.method ?? 'answer')).toEqual(['notifications/message', 'answer']);
    expect(events[0]?.params?.data).toBe('hello from east');
    const quiet = await call({});
    expect(quiet.headers.get('content-type')).toBe('application/json');
    expect(((await quiet.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: 'text', text: 'east chatted' }]);
  });

  it('passes a 2026-07-28 upstream’s input request to a v2 client, which answers and retries through the gateway', async () => {
    const discoverFirst = await discoverFirstClient();
    expect(textOf(await discoverFirst.callTool({ name: 'ask-user', arguments: {} }))).toBe('east user: Grace');
  });

  it('turns an older upstream’s sampling request into an input request for a v2 client, and its answer back upstream', async () => {
    const discoverFirst = await discoverFirstClient();
    expect(textOf(await discoverFirst.callTool({ name: 'ask-model', arguments: {} }))).toBe('model said: hi there');
    // On the wire: an InputRequiredResult whose requestState the retry must echo.
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const call = (params: Record<string, unknown>) =>
      fetch(`${gateway.url}/servers/alpha/mcp`, {
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
    const asked = await call({});
    expect(asked).toMatchObject({ resultType: 'input_required', inputRequests: { 'input-1': { method: 'sampling/createMessage' } }, requestState: expect.any(String) });
    const answered = await call({
      requestState: asked['requestState'],
      inputResponses: { 'input-1': { role: 'assistant', content: { type: 'text', text: 'raw' }, model: 'm' } },
    });
    expect(answered).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'model said: raw' }] });
  });

  it('tells a v2 client on its subscriptions/listen stream when a resource of a 2026-07-28 upstream changes', async () => {
    const discoverFirst = await discoverFirstClient();
    expect((await discoverFirst.discover()).capabilities.resources).toMatchObject({ subscribe: true });
    const updates: string[] = [];
    let updated!: () => void;
    const arrived = new Promise<void>((resolve) => (updated = resolve));
    discoverFirst.setNotificationHandler('notifications/resources/updated', (notification) => {
      updates.push(notification.params.uri);
      updated();
    });
    const subscription = await discoverFirst.listen({ resourceSubscriptions: [EAST_STATUS_URI] });
    closers.push(() => subscription.close());
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [EAST_STATUS_URI] });
    east.setStatus('east is stormy');
    await arrived;
    expect(updates).toEqual([EAST_STATUS_URI]);
    expect((await discoverFirst.readResource({ uri: EAST_STATUS_URI })).contents).toEqual([{ uri: EAST_STATUS_URI, mimeType: 'text/plain', text: 'east is stormy' }]);
  });

  if (stateful) {
    it('tells a v1 client on a session that a subscribed resource of a 2026-07-28 upstream changed, and takes the subscription back', async () => {
      const handshake = await connect(gateway.url, '/servers/alpha/mcp', 'alice');
      closers.push(() => handshake.close());
      expect(handshake.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
      const updates: unknown[] = [];
      let updated!: () => void;
      const arrived = new Promise<void>((resolve) => (updated = resolve));
      handshake.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updates.push(notification.params);
        updated();
      });
      expect(await handshake.subscribeResource({ uri: EAST_STATUS_URI })).toEqual({});
      east.setStatus('east is sunny');
      await arrived;
      // As an upstream of the older versions would tell it: no listen stream id of the gateway's.
      expect(updates).toEqual([{ uri: EAST_STATUS_URI }]);
      expect(textOfResource(await handshake.readResource({ uri: EAST_STATUS_URI }))).toBe('east is sunny');
      expect(await handshake.unsubscribeResource({ uri: EAST_STATUS_URI })).toEqual({});
    });

    it('turns a 2026-07-28 upstream’s input request into an elicitation for a v1 client on a session, and its answer back', async () => {
      const handshake = await connect(gateway.url, '/servers/alpha/mcp', 'alice', 'streamable-http', { elicitation: {} });
      closers.push(() => handshake.close());
      handshake.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
      expect(textOf(await handshake.callTool({ name: 'ask-user', arguments: {} }))).toBe('east user: Ada');
    });
  }
});
