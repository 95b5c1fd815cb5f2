import { DynamicModule, Module } from '@nestjs/common';
import { McpGatewayConfig } from '@arbor/config';
import { ControlPlaneSyncModule, DashboardSummaryModule } from '@arbor/contract';
import {
  MCP_GATEWAY_ENTITIES,
  MCP_GATEWAY_MIGRATIONS,
  McpAccessModule,
  McpAuditModule,
  McpAgentsModule,
  McpDashboard,
  McpGatewayWebUiModule,
  McpProjectSync,
  McpRegistryModule,
  McpRuntimeModule,
} from '@arbor/mcp-gateway';
import { DatabaseModule, OpenApiModule, PlatformModule, ServiceDefinition } from '@arbor/platform';

// Larger MCP bodies get the runtime's own 413 (a JSON-RPC error), not Express's.
const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;
/** Where the control plane's dispatcher delivers project sync (its CP_MCP_GATEWAY_SYNC_PATH). */
export const MCP_SYNC_PATH = '/admin/sync/control-plane/projects';

@Module({})
export class McpGatewayModule {
  static forConfig(config: McpGatewayConfig, options: { webRoot?: string } = {}): DynamicModule {
    const runtime = McpRuntimeModule.forOptions({
      stateful: config.statefulSessions,
      wsRelay: config.webSocketRelay,
      allowedOrigins: config.allowedOrigins,
      maxBodyBytes: MAX_MCP_BODY_BYTES,
      allowLinkLocalUpstreams: config.allowLinkLocalUpstreams,
      publicUrl: config.MCPGW_PUBLIC_URL,
      ...(config.MCPGW_REDIS_URL ? { redisUrl: config.MCPGW_REDIS_URL } : {}),
      ...(config.MCPGW_REPLICA_URL ? { replicaUrl: config.MCPGW_REPLICA_URL } : {}),
    });
    const controlPlane =
      config.MCPGW_OIDC_ISSUER_URL && config.MCPGW_CONTROL_PLANE_URL && config.MCPGW_M2M_CLIENT_ID && config.MCPGW_M2M_CLIENT_SECRET
        ? {
            issuer: config.MCPGW_OIDC_ISSUER_URL,
            audience: config.MCPGW_OIDC_AUDIENCE,
            baseUrl: config.MCPGW_CONTROL_PLANE_URL,
            clientId: config.MCPGW_M2M_CLIENT_ID,
            clientSecret: config.MCPGW_M2M_CLIENT_SECRET,
          }
        : undefined;
    return {
      module: McpGatewayModule,
      imports: [
        // Upstream servers and virtual servers live in its database: ready means that database answers.
        PlatformModule.forService(config, { readiness: 'database' }),
        DatabaseModule.forRoot({
          url: config.MCPGW_DATABASE_URL,
          variable: 'MCPGW_DATABASE_URL',
          applicationName: 'mcp-gateway',
          entities: MCP_GATEWAY_ENTITIES,
          migrations: MCP_GATEWAY_MIGRATIONS,
        }),
        // A bad MCPGW_CONFIG throws ConfigError here, before anything listens.
        McpRegistryModule.forOptions({
          ...(config.MCPGW_CONFIG ? { configFile: config.MCPGW_CONFIG } : {}),
          ...(config.MCPGW_SECRETS_KEY ? { secretsKey: config.MCPGW_SECRETS_KEY } : {}),
          previousSecretsKeys: (config.MCPGW_SECRETS_PREVIOUS_KEYS ?? '')
            .split(',')
            .map((key) => key.trim())
            .filter(Boolean),
          allowLinkLocal: config.allowLinkLocalUpstreams,
          repositoryTokenHosts: config.repositoryTokenHosts,
          publicUrl: config.MCPGW_PUBLIC_URL,
          ...(config.MCPGW_OIDC_CLIENT_ID && config.MCPGW_OIDC_CLIENT_SECRET
            ? { gatewayClient: { clientId: config.MCPGW_OIDC_CLIENT_ID, clientSecret: config.MCPGW_OIDC_CLIENT_SECRET } }
            : {}),
          // Passed even when incomplete, so that person-authorised calls can name what is missing.
          controlPlane: {
            audience: config.MCPGW_OIDC_AUDIENCE,
            ...(config.MCPGW_OIDC_ISSUER_URL ? { issuer: config.MCPGW_OIDC_ISSUER_URL } : {}),
            ...(config.MCPGW_CONTROL_PLANE_URL ? { baseUrl: config.MCPGW_CONTROL_PLANE_URL } : {}),
            ...(config.MCPGW_M2M_CLIENT_ID ? { clientId: config.MCPGW_M2M_CLIENT_ID } : {}),
            ...(config.MCPGW_M2M_CLIENT_SECRET ? { clientSecret: config.MCPGW_M2M_CLIENT_SECRET } : {}),
          },
          // The admin API shows the runtime's health and catalogues.
          imports: [runtime],
        }),
        // With the control plane (McpRegistryModule mounts the contract's ControlPlaneModule): project sync
        // (on the admin path, as the seed has one product do), and the suite dashboard's card, whose
        // figures depend on what the control plane lets a person see.
        ...(controlPlane
          ? [
              ControlPlaneSyncModule.forRoot({ issuer: controlPlane.issuer, audience: controlPlane.audience, path: MCP_SYNC_PATH, handler: McpProjectSync }),
              DashboardSummaryModule.forRootAsync({
                product: 'mcp-gateway',
                title: 'MCP gateway',
                imports: [runtime],
                inject: [McpDashboard],
                useFactory: (dashboard: McpDashboard) => (viewer) => dashboard.summary(viewer),
              }),
            ]
          : []),
        McpAccessModule,
        // Every tool call recorded (PostgreSQL, written off the call's path) and readable by the project's operators.
        McpAuditModule,
        // A2A agents: /api/v1/agents, /agents/{name}, and agents as tools of virtual servers.
        McpAgentsModule.forOptions({ publicUrl: config.MCPGW_PUBLIC_URL, allowLinkLocal: config.allowLinkLocalUpstreams }),
        // The web UI signs people in through the control plane, with the same setting.
        McpGatewayWebUiModule.forRoot({
          ...options,
          ...(controlPlane ? { signIn: { issuer: controlPlane.issuer, clientId: config.MCPGW_OIDC_UI_CLIENT_ID, controlPlaneUrl: controlPlane.baseUrl } } : {}),
        }),
        OpenApiModule.forService({
          title: 'Arbor MCP gateway — administration',
          description:
            'Upstream MCP servers, A2A agents, virtual servers, the federated tool catalogue, gateway API keys and the audit of tool calls. MCP itself is served at `/mcp` and ' +
            '`/servers/{id}/mcp` (Streamable HTTP), A2A agents at `/agents/{name}`. Errors answer `{"error": {"code", "message", "details?"}}`. ' +
            "Authenticate with a person's OIDC token (audience MCPGW_OIDC_AUDIENCE) as a bearer token.",
        }),
      ],
    };
  }
}

export const mcpGatewayService: ServiceDefinition<McpGatewayConfig> = {
  schema: McpGatewayConfig,
  module: (config) => McpGatewayModule.forConfig(config),
  bodyLimit: '5mb',
  // The suite dashboard (the control plane's UI) reads the summary from the browser.
  corsOrigins: (config) => config.corsOrigins,
  // Legacy HTTP+SSE messages carry tool arguments, passed on as sent (as on /mcp): only their nesting is checked.
  // A2A messages to agents likewise: free text passed on to the agent.
  opaqueBody: (path) => path === '/message' || /^\/servers\/[^/]+\/message$/.test(path) || path.startsWith('/agents/'),
};

/** The gateway serving the built web UI from `webRoot` at `/` (the app's main.ts). */
export function mcpGatewayServiceWithWebUi(webRoot: string): ServiceDefinition<McpGatewayConfig> {
  return { ...mcpGatewayService, module: (config) => McpGatewayModule.forConfig(config, { webRoot }) };
}
