import type { AgentDefinition } from '../agents/agent-definition';
import type { UpstreamAuth } from '../credentials/upstream-auth';

/** How the gateway reaches an upstream MCP server. */
export type UpstreamTransport = 'streamable-http' | 'sse';

/** An upstream MCP server, as the runtime needs it (secrets already decrypted: never log `headers`). */
export interface UpstreamDefinition {
  /** Unique, `[a-z0-9][a-z0-9_-]*`; also the prefix of its names on `/mcp`. */
  name: string;
  url: string;
  transport: UpstreamTransport;
  /** Sent on every request to the upstream (e.g. `authorization: Bearer …`). */
  headers: Readonly<Record<string, string>>;
  /** Per call; default 60 000. */
  timeoutMs: number;
  /** Calls in flight to this upstream at most; more wait. */
  maxConcurrency: number;
  /** How each call is authenticated (see the credentials module); absent: `static`, the headers above. */
  auth?: UpstreamAuth;
}

/** What a virtual server takes from one upstream: every item of a kind (`'*'`) or the named ones. */
export interface UpstreamSelection {
  /** The upstream's name, or the agent's (`kind: 'agent'`: MCPGW_CONFIG's `{agent: <name>}`, its one tool). */
  upstream: string;
  /** `agent`: an A2A agent (agents and upstreams share one namespace), offered as one tool. */
  kind?: 'agent';
  /** Tool names as the upstream names them. */
  tools: '*' | readonly string[];
  /** Resource URIs (and resource template URI templates) as the upstream names them. */
  resources: '*' | readonly string[];
  /** Prompt names as the upstream names them. */
  prompts: '*' | readonly string[];
}

/**
 * The role a tool, resource or prompt of a virtual server needs on the server's project: `operator`
 * (the `mcp-gateway.operator` role), or `viewer` (any role of the MCP gateway on the project).
 */
export type ItemRole = 'operator' | 'viewer';

/** A per-tool rate limit: calls a minute, counted per person or API key. */
export interface ToolRateLimit {
  perMinute: number;
}

/** A virtual server: `/servers/{id}/mcp`, belonging to a control-plane project. */
export interface VirtualServerDefinition {
  /** `[a-z0-9][a-z0-9-]*`, unique. */
  id: string;
  /** Control-plane project slug. */
  project: string;
  name: string;
  description?: string;
  selections: readonly UpstreamSelection[];
  /** The guardrails (of MCPGW_CONFIG's `guardrails:`) on its tool calls, besides the `default_on` ones; absent: none. */
  guardrails?: readonly string[];
  /**
   * The role each tool needs, by the name it is exposed under (or `<upstream>__<tool>`); a tool not
   * named needs any role, one whose annotations say `destructiveHint: true` the operator role. Absent: none named.
   */
  toolRoles?: Readonly<Record<string, ItemRole>>;
  /** The role each resource (by URI) or resource template (by URI template) needs; absent: any role for all. */
  resourceRoles?: Readonly<Record<string, ItemRole>>;
  /** The role each prompt needs, by name; absent: any role for all. */
  promptRoles?: Readonly<Record<string, ItemRole>>;
  /** Per-tool rate limits, by the name it is exposed under (or `<upstream>__<tool>`); absent: none. */
  toolRateLimits?: Readonly<Record<string, ToolRateLimit>>;
  /** The audit of its tool calls keeps their arguments and results too (as the guardrails left them); absent: never. */
  auditPayloads?: boolean;
}

/**
 * The upstreams and virtual servers the gateway serves, from MCPGW_CONFIG and the admin API
 * (PostgreSQL). The runtime reads it on every new session and follows its changes.
 */
export abstract class ServerRegistry {
  abstract upstreams(): readonly UpstreamDefinition[];
  abstract upstream(name: string): UpstreamDefinition | undefined;
  abstract servers(): readonly VirtualServerDefinition[];
  abstract server(id: string): VirtualServerDefinition | undefined;
  /** The A2A agents (none unless the registry keeps them). */
  agents(): readonly AgentDefinition[] {
    return [];
  }
  agent(name: string): AgentDefinition | undefined {
    return this.agents().find((agent) => agent.name === name);
  }
  /** Called after any upstream, server or agent was added, changed or removed; returns an unsubscribe. */
  abstract onChange(listener: () => void): () => void;
}
