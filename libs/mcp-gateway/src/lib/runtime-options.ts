/** How the MCP runtime serves (McpRuntimeModule.forOptions). */
export interface McpRuntimeOptions {
  /** USE_STATEFUL_SESSIONS: Streamable HTTP sessions, SSE streams, the GET stream, resumption. */
  stateful?: boolean;
  /** MCPGW_WS_RELAY_ENABLED: the WebSocket relay at `/ws` and `/servers/{id}/ws`. */
  wsRelay?: boolean;
  /** Browser origins allowed besides the request's own host (DNS-rebinding protection). */
  allowedOrigins?: readonly string[];
  /** Largest request body, default 4 MiB; larger gets 413. */
  maxBodyBytes?: number;
  /** How often each upstream is pinged for its health, default 30 s. */
  pingIntervalMs?: number;
  /** Items per page of tools/list, resources/list, … toward clients, default 100. */
  pageSize?: number;
  /** A session nobody used for this long is ended, default 30 min. */
  sessionIdleMs?: number;
  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS: upstreams may be reached on link-local and cloud metadata addresses. */
  allowLinkLocalUpstreams?: boolean;
  /** MCPGW_REDIS_URL: stateful sessions' owners are shared, so that any replica serves any session. */
  redisUrl?: string;
  /** MCPGW_REPLICA_URL: where the other replicas reach this one (with redisUrl). */
  replicaUrl?: string;
  /** MCPGW_PUBLIC_URL: where MCP clients reach the gateway, default http://localhost:4444. */
  publicUrl?: string;
}

export type ResolvedRuntimeOptions = Required<Omit<McpRuntimeOptions, 'redisUrl' | 'replicaUrl'>> & Pick<McpRuntimeOptions, 'redisUrl' | 'replicaUrl'>;

export const MCP_RUNTIME_OPTIONS = Symbol('arbor.mcp-runtime-options');

export function resolveRuntimeOptions(options: McpRuntimeOptions): ResolvedRuntimeOptions {
  return {
    stateful: options.stateful ?? false,
    wsRelay: options.wsRelay ?? false,
    allowedOrigins: options.allowedOrigins ?? [],
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    pingIntervalMs: options.pingIntervalMs ?? 30_000,
    pageSize: options.pageSize ?? 100,
    sessionIdleMs: options.sessionIdleMs ?? 30 * 60_000,
    allowLinkLocalUpstreams: options.allowLinkLocalUpstreams ?? false,
    publicUrl: options.publicUrl ?? 'http://localhost:4444',
    ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
    ...(options.replicaUrl ? { replicaUrl: options.replicaUrl } : {}),
  };
}
