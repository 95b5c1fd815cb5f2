// The runtime module in a Nest test app, with an in-memory registry and an access policy that
// reads `Authorization: Bearer <person>` (or `?access_token=` on WebSocket upgrades), its direct
// routes installed as startService installs them.
import type { IncomingMessage, Server } from 'node:http';
import { INestApplication, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { GuardrailDefinition } from '@arbor/guardrails';
import { MetricsRegistry, ObservabilityModule } from '@arbor/observability';
import { DirectRoutes, UpgradeRoutes } from '@arbor/platform';
import { McpAccessError, McpAccessGrant, McpAccessPolicy } from '../../access/mcp-access';
import { ToolCallGuardrails } from '../../guardrails/tool-call-guardrails';
import { ServerRegistry, UpstreamDefinition, VirtualServerDefinition } from '../../registry/server-registry';
import { UpstreamCatalogue } from '../../registry/upstream-catalogue';
import { McpRuntimeModule } from '../../runtime.module';
import type { McpRuntimeOptions } from '../../runtime-options';
import type { TestUpstream } from './test-upstreams';

export class InMemoryServerRegistry extends ServerRegistry {
  private listeners = new Set<() => void>();

  constructor(
    private upstreamList: UpstreamDefinition[],
    private serverList: VirtualServerDefinition[],
  ) {
    super();
  }

  upstreams(): readonly UpstreamDefinition[] {
    return this.upstreamList;
  }
  upstream(name: string): UpstreamDefinition | undefined {
    return this.upstreamList.find((u) => u.name === name);
  }
  servers(): readonly VirtualServerDefinition[] {
    return this.serverList;
  }
  server(id: string): VirtualServerDefinition | undefined {
    return this.serverList.find((s) => s.id === id);
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** As an admin API change would: the servers replaced, and the runtime told. */
  replaceServers(servers: VirtualServerDefinition[]): void {
    this.serverList = servers;
    for (const listener of [...this.listeners]) listener();
  }
}

/** The identity provider the test policy names in its protected resource metadata. */
export const TEST_AUTHORIZATION_SERVER = 'https://idp.example.com/realms/arbor';

/** Who may use what: alice every test server, bob only `narrow`, dave only `alpha`. */
export const GRANTS: Record<string, string[]> = { alice: ['alpha', 'narrow', 'hasty'], bob: ['narrow'], dave: ['alpha'] };
/** Whose projects they operate (the operator role): alice all of hers; bob and dave hold other roles. */
export const OPERATES: Record<string, string[]> = { alice: ['alpha', 'narrow', 'hasty'] };

export class TestAccessPolicy extends McpAccessPolicy {
  async authorize(request: IncomingMessage): Promise<McpAccessGrant> {
    const header = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const token = header ?? new URL(request.url ?? '/', 'http://gateway').searchParams.get('access_token') ?? undefined;
    if (!token) throw new McpAccessError(401, 'unauthenticated', 'Sign in first', { 'www-authenticate': 'Bearer realm="mcp-gateway"' });
    const servers = GRANTS[token];
    if (!servers) throw new McpAccessError(403, 'no_sign_in_key', 'You may not use the MCP gateway');
    return { principal: token, servers, operates: new Set(OPERATES[token] ?? []) };
  }

  override authorizationServers(): readonly string[] {
    return [TEST_AUTHORIZATION_SERVER];
  }
}

export function testServers(): VirtualServerDefinition[] {
  return [
    {
      id: 'alpha',
      project: 'alpha',
      name: 'Alpha tools',
      selections: [
        { upstream: 'north', tools: '*', resources: '*', prompts: '*' },
        { upstream: 'south', tools: '*', resources: '*', prompts: '*' },
      ],
    },
    { id: 'narrow', project: 'beta', name: 'Just adding', selections: [{ upstream: 'north', tools: ['add'], resources: [], prompts: [] }] },
  ];
}

export function upstreamDefinition(name: string, upstream: TestUpstream, transport: UpstreamDefinition['transport']): UpstreamDefinition {
  return { name, url: upstream.url, transport, headers: { authorization: 'Bearer upstream-secret' }, timeoutMs: 10_000, maxConcurrency: 4 };
}

/** The registry most tests use: `north` over Streamable HTTP, `south` over SSE, and testServers(). */
export function northAndSouthRegistry(north: TestUpstream, south: TestUpstream): InMemoryServerRegistry {
  return new InMemoryServerRegistry([upstreamDefinition('north', north, 'streamable-http'), upstreamDefinition('south', south, 'sse')], testServers());
}

export interface TestGateway {
  app: INestApplication;
  url: string;
  catalogue: UpstreamCatalogue;
  close(): Promise<void>;
}

/**
 * `nestBodyParser: false` leaves the bodies of the Nest routes (`/message`) to the runtime, as an app with its parser off would;
 * `guardrails` are those of MCPGW_CONFIG, as the registry module gives them to the runtime.
 */
export async function startGateway(
  registry: ServerRegistry,
  options: McpRuntimeOptions,
  nestBodyParser = true,
  port = 0,
  guardrails: readonly GuardrailDefinition[] = [],
): Promise<TestGateway> {
  @Module({
    providers: [
      { provide: ServerRegistry, useValue: registry },
      { provide: McpAccessPolicy, useClass: TestAccessPolicy },
      { provide: ToolCallGuardrails, useFactory: (metrics: MetricsRegistry) => new ToolCallGuardrails(guardrails, metrics), inject: [MetricsRegistry] },
      DirectRoutes,
      UpgradeRoutes,
    ],
    exports: [ServerRegistry, McpAccessPolicy, ToolCallGuardrails, DirectRoutes, UpgradeRoutes],
  })
  class TestSeamsModule {}

  const moduleRef = await Test.createTestingModule({
    imports: [ObservabilityModule.forRoot({ serviceName: 'mcp-gateway-test', logFilter: 'off' }), McpRuntimeModule.forOptions({ ...options, imports: [TestSeamsModule] })],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false, bodyParser: nestBodyParser });
  app.get(DirectRoutes).install(app.getHttpServer() as Server);
  await app.listen(port, '127.0.0.1');
  const listening = (app.getHttpServer().address() as { port: number }).port;
  return {
    app,
    url: `http://127.0.0.1:${listening}`,
    catalogue: app.get(UpstreamCatalogue),
    close: () => app.close(),
  };
}

export type ClientKind = 'streamable-http' | 'sse' | 'websocket';

/** The official SDK client, connected to the gateway as `person`. */
export async function connect(gatewayUrl: string, path: string, person: string, kind: ClientKind = 'streamable-http', capabilities: ClientCapabilities = {}): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities });
  const requestInit = { headers: { authorization: `Bearer ${person}` } };
  const transport =
    kind === 'websocket'
      ? new WebSocketClientTransport(new URL(`${gatewayUrl.replace(/^http/, 'ws')}${path}?access_token=${person}`))
      : kind === 'sse'
        ? new SSEClientTransport(new URL(`${gatewayUrl}${path}`), { requestInit })
        : new StreamableHTTPClientTransport(new URL(`${gatewayUrl}${path}`), { requestInit });
  await client.connect(transport);
  return client;
}

/** Waits until `check` holds (polling; the deadline only bounds a failing test). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}
