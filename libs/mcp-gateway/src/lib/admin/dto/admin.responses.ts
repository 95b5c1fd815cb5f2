import type { StoredServer, StoredUpstream } from '../../registry/registry-store';
import type { ItemRole, UpstreamSelection } from '../../registry/server-registry';
import type { UpstreamHealth } from '../../registry/upstream-catalogue';
import { authResponse, STATIC_AUTH } from '../../credentials/upstream-auth';

/** An upstream as the admin API shows it: header names, never their values. */
export interface UpstreamResponse {
  name: string;
  url: string;
  transport: string;
  header_names: string[];
  /** How each call is authenticated; a client secret only as `has_client_secret`. */
  auth: ReturnType<typeof authResponse>;
  timeout_ms: number;
  max_concurrency: number;
  /** `config`: from MCPGW_CONFIG, read-only here. */
  source: string;
  /** From the runtime's pings; absent when the gateway runs without it. */
  health?: { state: UpstreamHealth['state']; last_seen_at: string | null; last_error: string | null };
  /** The MCP version the runtime speaks with it: 2026-07-28 when it answers server/discover, else what initialize agreed; null before it connects. */
  protocol_version?: string | null;
  tool_count?: number;
  created_at: string;
  updated_at: string;
}

export function upstreamResponse(upstream: StoredUpstream, runtime?: { health?: UpstreamHealth; toolCount: number }): UpstreamResponse {
  return {
    name: upstream.name,
    url: upstream.url,
    transport: upstream.transport,
    header_names: Object.keys(upstream.headers).sort(),
    auth: authResponse(upstream.auth ?? STATIC_AUTH),
    timeout_ms: upstream.timeoutMs,
    max_concurrency: upstream.maxConcurrency,
    source: upstream.source,
    ...(runtime
      ? {
          health: runtime.health
            ? { state: runtime.health.state, last_seen_at: runtime.health.lastSeenAt ?? null, last_error: runtime.health.lastError ?? null }
            : { state: 'connecting' as const, last_seen_at: null, last_error: null },
          protocol_version: runtime.health?.protocolVersion ?? null,
          tool_count: runtime.toolCount,
        }
      : {}),
    created_at: upstream.createdAt.toISOString(),
    updated_at: upstream.updatedAt.toISOString(),
  };
}

export interface ServerResponse {
  id: string;
  project: string;
  name: string;
  description: string | null;
  /** `{upstream, tools, resources, prompts}`, or `{agent}` for an A2A agent it includes. */
  upstreams: (UpstreamSelection | { agent: string })[];
  /** The guardrails it names (the default_on ones of MCPGW_CONFIG apply besides). */
  guardrails: string[];
  /** The role each named tool needs (others: any role; `destructiveHint: true` ones: operator). */
  tool_roles: Record<string, ItemRole>;
  resource_roles: Record<string, ItemRole>;
  prompt_roles: Record<string, ItemRole>;
  tool_rate_limits: Record<string, { per_minute: number }>;
  audit_payloads: boolean;
  source: string;
  created_at: string;
  updated_at: string;
}

export function serverResponse(server: StoredServer): ServerResponse {
  return {
    id: server.id,
    project: server.project,
    name: server.name,
    description: server.description ?? null,
    upstreams: server.selections.map((selection) => (selection.kind === 'agent' ? { agent: selection.upstream } : selection)),
    guardrails: [...(server.guardrails ?? [])],
    tool_roles: { ...server.toolRoles },
    resource_roles: { ...server.resourceRoles },
    prompt_roles: { ...server.promptRoles },
    tool_rate_limits: Object.fromEntries(Object.entries(server.toolRateLimits ?? {}).map(([tool, limit]) => [tool, { per_minute: limit.perMinute }])),
    audit_payloads: server.auditPayloads === true,
    source: server.source,
    created_at: server.createdAt.toISOString(),
    updated_at: server.updatedAt.toISOString(),
  };
}
