// Tool roles through the official SDK clients of both eras, in both modes, over every transport:
// a tool that needs the operator role is neither listed to nor callable by a person without it,
// and an open session hears of a change of the server's roles. (The test access policy: alice
// operates `alpha`, dave only views it; see GRANTS and OPERATES.)
import { Client as DiscoverFirstClient, StreamableHTTPClientTransport as DiscoverFirstTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { VirtualServerDefinition } from '../registry/server-registry';
import { ClientKind, connect, eventually, InMemoryServerRegistry, startGateway, TestGateway, textOf, upstreamDefinition } from '../transports/testing/test-gateway';
import { StreamableUpstream } from '../transports/testing/test-upstreams';

interface Caller {
  tools(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<string>;
}

const alpha = (toolRoles: Record<string, 'operator' | 'viewer'>): VirtualServerDefinition => ({
  id: 'alpha',
  project: 'alpha',
  name: 'Alpha',
  selections: [{ upstream: 'north', tools: ['echo', 'add'], resources: [], prompts: [] }],
  toolRoles,
});

describe.each([
  ['stateless', {}],
  ['stateful', { stateful: true, wsRelay: true }],
] as const)('tool roles (%s gateway)', (_mode, options) => {
  const north = new StreamableUpstream();
  let registry: InMemoryServerRegistry;
  let gateway: TestGateway;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    await north.start();
    registry = new InMemoryServerRegistry([upstreamDefinition('north', north, 'streamable-http')], [alpha({ add: 'operator' })]);
    gateway = await startGateway(registry, options);
  });

  afterAll(async () => {
    await Promise.all(closers.map((close) => close().catch(() => undefined)));
    await gateway.close();
    await north.stop();
  });

  async function handshakeCaller(person: string, kind: ClientKind = 'streamable-http', withProgress = false, path = '/servers/alpha/mcp'): Promise<Caller> {
    const client: Client = await connect(gateway.url, path.replace(/\/mcp$/, kind === 'sse' ? '/sse' : kind === 'websocket' ? '/ws' : '/mcp'), person, kind);
    closers.push(() => client.close());
    return {
      tools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
      // A progress handler sends the call the SDK server's way instead of the hot path.
      call: async (name, args) => textOf(await client.callTool({ name, arguments: args }, undefined, withProgress ? { onprogress: () => undefined } : {})),
    };
  }

  async function discoverFirstCaller(person: string): Promise<Caller> {
    const client = new DiscoverFirstClient({ name: 'v2-client', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new DiscoverFirstTransport(new URL(`${gateway.url}/servers/alpha/mcp`), { requestInit: { headers: { authorization: `Bearer ${person}` } } }));
    closers.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    return {
      tools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
      call: async (name, args) => textOf(await client.callTool({ name, arguments: args })),
    };
  }

  const callers: [string, (person: string) => Promise<Caller>][] = [
    ['the v1 SDK client (Streamable HTTP)', (person) => handshakeCaller(person)],
    ['the v1 SDK client with progress (the SDK server)', (person) => handshakeCaller(person, 'streamable-http', true)],
    ['the v2 SDK client in the 2026-07-28 era', discoverFirstCaller],
    ...('stateful' in options
      ? ([
          ['the v1 SDK client over HTTP+SSE', (person: string) => handshakeCaller(person, 'sse')],
          ['the v1 SDK client over WebSocket', (person: string) => handshakeCaller(person, 'websocket')],
        ] as [string, (person: string) => Promise<Caller>][])
      : []),
  ];

  describe.each(callers)('through %s', (_client, open) => {
    it('neither lists nor calls for a viewer a tool that needs the operator role; an operator does both', async () => {
      const viewer = await open('dave');
      expect(await viewer.tools()).toEqual(['echo']);
      await expect(viewer.call('add', { a: 1, b: 2 })).rejects.toThrow(/Tool add not found/);
      expect(await viewer.call('echo', { text: 'hi' })).toBe('north: hi');
      const operator = await open('alice');
      expect(await operator.tools()).toEqual(['add', 'echo']);
      expect(await operator.call('add', { a: 20, b: 22 })).toBe('42');
    });
  });

  if ('stateful' in options) {
    it.each(['streamable-http', 'sse', 'websocket'] as const)('tells an open %s session that its tool list changed when the roles do', async (kind) => {
      const client: Client = await connect(gateway.url, kind === 'sse' ? '/servers/alpha/sse' : kind === 'websocket' ? '/servers/alpha/ws' : '/servers/alpha/mcp', 'dave', kind);
      closers.push(() => client.close());
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      registry.replaceServers([alpha({})]);
      await eventually(() => changed > 0, 'notifications/tools/list_changed');
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['add', 'echo']);
      // A change that shows this caller nothing new is not announced.
      registry.replaceServers([alpha({ echo: 'viewer' })]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(changed).toBe(1);
      registry.replaceServers([alpha({ add: 'operator' })]);
      await eventually(() => changed > 1, 'the second notifications/tools/list_changed');
    });
  }
});
