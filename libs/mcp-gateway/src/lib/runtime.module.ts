import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { Catalogues } from './catalogue/catalogues';
import { McpDashboard } from './dashboard/mcp-dashboard';
import { Federation } from './federation/federated-session';
import { McpMetrics } from './metrics/mcp-metrics';
import { DiscoverFirstEndpoint } from './discover-first/discover-first-endpoint';
import { InputRoundTrips } from './discover-first/input-round-trips';
import { ProtectedResourceMetadata } from './oauth/protected-resource';
import { UpstreamCatalogue } from './registry/upstream-catalogue';
import { MCP_RUNTIME_OPTIONS, McpRuntimeOptions, resolveRuntimeOptions } from './runtime-options';
import { DownstreamSessions } from './transports/downstream-sessions';
import { LegacySseController } from './transports/legacy-sse.controller';
import { HotPath } from './transports/hot-path';
import { McpEdge } from './transports/mcp-edge';
import { SessionOwners } from './transports/session-owners';
import { StatelessCalls } from './transports/stateless-calls';
import { StreamableHttpRoutes } from './transports/streamable-http.routes';
import { WsRelay } from './transports/ws-relay';
import { UpstreamPool } from './upstreams/upstream-pool';
import { CatalogueAccess } from './catalogue/catalogue-access';
import { ToolAccessPolicy } from './tool-access/tool-access-policy';
import { ToolRateLimits } from './rate-limits/tool-rate-limits';

export interface McpRuntimeModuleOptions extends McpRuntimeOptions {
  /** Modules exporting ServerRegistry, McpAccessPolicy and ToolCallGuardrails, unless those are global (McpRegistryModule provides the first and the last). */
  imports?: ModuleMetadata['imports'];
}

/**
 * The MCP gateway's runtime: upstream sessions, federation and the transports (`/mcp`,
 * `/servers/{id}/mcp` as direct routes, `/sse`, `/message`, and `/ws` with the relay on). Needs
 * ServerRegistry, McpAccessPolicy, ToolCallGuardrails and the platform's DirectRoutes; provides UpstreamCatalogue.
 */
@Module({})
export class McpRuntimeModule {
  static forOptions({ imports = [], ...options }: McpRuntimeModuleOptions): DynamicModule {
    const resolved = resolveRuntimeOptions(options);
    return {
      module: McpRuntimeModule,
      imports,
      controllers: [LegacySseController],
      providers: [
        { provide: MCP_RUNTIME_OPTIONS, useValue: resolved },
        McpMetrics,
        UpstreamPool,
        { provide: UpstreamCatalogue, useExisting: UpstreamPool },
        // Tool roles and key scopes, and per-tool rate limits: policies of the one catalogue.
        { provide: CatalogueAccess, useClass: ToolAccessPolicy },
        ToolRateLimits,
        Catalogues,
        Federation,
        SessionOwners,
        DownstreamSessions,
        McpEdge,
        HotPath,
        StatelessCalls,
        DiscoverFirstEndpoint,
        InputRoundTrips,
        StreamableHttpRoutes,
        ProtectedResourceMetadata,
        ...(resolved.wsRelay ? [WsRelay] : []),
        McpDashboard,
      ],
      // HotPath and McpMetrics: the admin API's tool tries and per-tool figures, through the same catalogue and counters.
      exports: [UpstreamCatalogue, McpDashboard, HotPath, McpMetrics],
    };
  }
}
