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
  upstream: string;
  /** Tool names as the upstream names them. */
  tools: '*' | readonly string[];
  /** Resource URIs (and resource template URI templates) as the upstream names them. */
  resources: '*' | readonly string[];
  /** Prompt names as the upstream names them. */
  prompts: '*' | readonly string[];
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
  /** Called after any upstream or server was added, changed or removed; returns an unsubscribe. */
  abstract onChange(listener: () => void): () => void;
}
