// The MCP gateway's admin API as this UI calls it (/api/v1/upstreams, /servers, /keys in
// libs/mcp-gateway/src/lib/admin and …/access), in the shape openapi-typescript writes, so that the
// client is typed as every product UI's is. The gateway's OpenAPI document does not describe these
// answers yet (the responses are plain interfaces there): when it does, this file gives way to the
// generated one. Fields the API adds later (agents) are added here.

export type Transport = 'streamable-http' | 'sse';

/** How the gateway authenticates to an upstream (`auth` of libs/mcp-gateway's credentials module), as the admin API takes it. */
export type UpstreamAuthBody =
  | { type: 'static' }
  | { type: 'token_exchange'; audience: string; scope?: string }
  /** Without client_id the gateway registers a client itself (RFC 7591); client_secret is write-only (left out for the same client_id: kept). */
  | { type: 'oauth'; scope?: string; client_id?: string; client_secret?: string; client_credentials?: boolean };

/** An upstream's `auth` as the admin API shows it: the client secret only as `has_client_secret`. */
export type UpstreamAuth =
  | { type: 'static' }
  | { type: 'token_exchange'; audience: string; scope?: string }
  | { type: 'oauth'; scope?: string; client_id?: string; has_client_secret: boolean; client_credentials: boolean };

/** The role an item of a virtual server needs on its project: `viewer` is any role. */
export type ItemRole = 'operator' | 'viewer';

/** An upstream as the admin API shows it: header names, never their values. */
export interface Upstream {
  name: string;
  url: string;
  transport: Transport;
  header_names: string[];
  auth: UpstreamAuth;
  timeout_ms: number;
  max_concurrency: number;
  /** `config`: from MCPGW_CONFIG, read-only here. */
  source: 'api' | 'config';
  health?: { state: 'up' | 'down' | 'connecting'; last_seen_at: string | null; last_error: string | null };
  /** The era the gateway speaks with it: 2026-07-28, or what initialize agreed. */
  protocol_version?: string | null;
  tool_count?: number;
  created_at: string;
  updated_at: string;
}

export interface UpstreamBody {
  name?: string;
  url?: string;
  transport?: Transport;
  /** Write-only; on a change, replaces every header. */
  headers?: Record<string, string>;
  /** Replaces the auth (default static). */
  auth?: UpstreamAuthBody;
  timeout_ms?: number;
  max_concurrency?: number;
}

/** What a virtual server takes from one upstream: `'*'` or the names. */
export interface Selection {
  upstream: string;
  tools: '*' | string[];
  resources: '*' | string[];
  prompts: '*' | string[];
}

/** An A2A agent a virtual server offers as one tool. */
export interface AgentSelection {
  agent: string;
}

export const isAgentSelection = (selection: Selection | AgentSelection): selection is AgentSelection => 'agent' in selection;

export interface VirtualServer {
  id: string;
  project: string;
  name: string;
  description: string | null;
  upstreams: (Selection | AgentSelection)[];
  guardrails: string[];
  /** The role each named tool needs (as the server exposes it); a tool not named any role, a destructive one operator. */
  tool_roles: Record<string, ItemRole>;
  /** Calls a minute each person or key may make of a tool. */
  tool_rate_limits: Record<string, { per_minute: number }>;
  source: 'api' | 'config';
  created_at: string;
  updated_at: string;
}

export interface ServerBody {
  id?: string;
  project?: string;
  name?: string;
  description?: string | null;
  upstreams?: (Partial<Selection> | AgentSelection)[];
  /** Replaces the map. */
  tool_roles?: Record<string, ItemRole>;
  /** Replaces the map. */
  tool_rate_limits?: Record<string, { per_minute: number }>;
}

/** A tool as the caller's MCP client lists it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  annotations?: Record<string, unknown>;
}

/** A tools/call result. */
export interface ToolResult {
  content: ({ type: 'text'; text: string } | { type: string; [field: string]: unknown })[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** An item of an upstream's catalogue, with the caller's servers that expose it. */
export interface CatalogueItem {
  upstream: string;
  kind: 'tool' | 'resource' | 'resource-template' | 'prompt';
  name: string;
  description: string | null;
  servers: string[];
  /** A tool whose annotations say `destructiveHint: true`: it needs the operator role unless tool_roles names it. */
  destructive: boolean;
  /** The role it needs on each of those servers. */
  required_roles: Record<string, ItemRole>;
}

export interface McpApiKey {
  id: string;
  project: string;
  name: string;
  /** The only tools it sees and calls; null: every tool. */
  tools: string[] | null;
  key_hint: string;
  expires_at: string | null;
  created_at: string;
  /** Only in the answer that made it. */
  key?: string;
}

export interface NewMcpApiKey {
  project: string;
  name?: string;
  expires_at?: string | null;
  /** At least one; left out: every tool. */
  tools?: string[];
}

/** The signed-in person's connection to an `oauth` upstream (GET /api/v1/me/connections). */
export interface Connection {
  upstream: string;
  connected: boolean;
  connected_at: string | null;
  /** When the current access token expires (renewed with the refresh token). */
  expires_at: string | null;
  scope: string | null;
  /** Opens the consent at the upstream's authorisation server; good for 15 minutes. */
  connect_url: string;
}

export type ToolCallOutcome = 'ok' | 'tool_error' | 'blocked' | 'error' | 'rate_limited' | 'denied' | 'not_found';

/** One tool call of the audit (GET /api/v1/tool-calls), newest first. */
export interface ToolCall {
  id: string;
  called_at: string;
  /** null: through /mcp. */
  server: string | null;
  projects: string[];
  caller: { kind: 'person' | 'key'; id: string; name: string };
  upstream: string | null;
  tool: string;
  outcome: ToolCallOutcome;
  duration_ms: number;
  error_code: number | null;
}

/** One tool's calls in one hour (this replica's). */
export interface ToolCallHour {
  hour: string;
  tool: string;
  calls: number;
  errors: number;
  mean_latency_ms: number | null;
}

export type AgentAuthType = 'none' | 'static' | 'token_exchange' | 'oauth';

/** An A2A agent as the admin API shows it (/api/v1/agents): header names and whether a client secret is kept, never the values. */
export interface Agent {
  name: string;
  url: string;
  project: string;
  description: string | null;
  auth: { type: AgentAuthType; header_names: string[]; audience?: string; scope?: string; client_id?: string; has_client_secret?: boolean; client_credentials?: boolean };
  source: 'api' | 'config';
  /** Where callers reach it through the gateway (JSON-RPC; HTTP+JSON at `…/rest`). */
  gateway_url: string;
  /** The card the gateway serves, every interface the gateway's. */
  card_url: string;
  card: {
    name: string;
    description: string;
    version: string;
    interfaces: { binding: string; protocol_version: string }[];
    capabilities: { streaming: boolean; push_notifications: boolean };
    skills: { id: string; name: string; description: string; tags: string[]; examples: string[] }[];
  } | null;
  card_read_at: string | null;
  health: { state: 'up' | 'down' | 'connecting'; last_seen_at: string | null; last_error: string | null };
  created_at: string;
  updated_at: string;
}

export interface AgentBody {
  name?: string;
  url?: string;
  project?: string;
  description?: string | null;
  /** Write-only values (headers, client_secret); on a change, replaces the agent's auth. */
  auth?: { type: AgentAuthType; headers?: Record<string, string>; audience?: string; scope?: string; client_id?: string; client_secret?: string; client_credentials?: boolean };
}

/** One A2A method's calls to an agent in one hour (this replica's). */
export interface AgentCallHour {
  hour: string;
  method: string;
  calls: number;
  errors: number;
  mean_latency_ms: number | null;
}

interface ErrorAnswer {
  content: { 'application/json': { error: { code: string; message: string; details?: Record<string, unknown> } } };
}
type Answer<T> = { content: { 'application/json': T } };
type Json<T> = { content: { 'application/json': T } };
type Path<P> = { parameters: { path: P } };

export interface paths {
  '/api/v1/upstreams': {
    get: { responses: { 200: Answer<{ upstreams: Upstream[] }>; default: ErrorAnswer } };
    post: { requestBody: Json<UpstreamBody>; responses: { 201: Answer<Upstream>; default: ErrorAnswer } };
  };
  '/api/v1/upstreams/{name}': {
    patch: Path<{ name: string }> & { requestBody: Json<UpstreamBody>; responses: { 200: Answer<Upstream>; default: ErrorAnswer } };
    delete: Path<{ name: string }> & { responses: { 204: { content?: never }; default: ErrorAnswer } };
  };
  '/api/v1/servers': {
    get: { parameters: { query?: { project?: string } }; responses: { 200: Answer<{ servers: VirtualServer[] }>; default: ErrorAnswer } };
    post: { requestBody: Json<ServerBody>; responses: { 201: Answer<VirtualServer>; default: ErrorAnswer } };
  };
  '/api/v1/servers/{id}': {
    patch: Path<{ id: string }> & { requestBody: Json<ServerBody>; responses: { 200: Answer<VirtualServer>; default: ErrorAnswer } };
    delete: Path<{ id: string }> & { responses: { 204: { content?: never }; default: ErrorAnswer } };
  };
  '/api/v1/servers/{id}/tools': { get: Path<{ id: string }> & { responses: { 200: Answer<{ tools: McpTool[] }>; default: ErrorAnswer } } };
  '/api/v1/servers/{id}/tools/{tool}/call': {
    post: Path<{ id: string; tool: string }> & { requestBody: Json<{ arguments?: Record<string, unknown> }>; responses: { 200: Answer<ToolResult>; default: ErrorAnswer } };
  };
  '/api/v1/servers/{id}/tool-calls': { get: Path<{ id: string }> & { responses: { 200: Answer<{ hours: ToolCallHour[] }>; default: ErrorAnswer } } };
  '/api/v1/tools': {
    get: { parameters: { query?: { upstream?: string; server?: string } }; responses: { 200: Answer<{ items: CatalogueItem[] }>; default: ErrorAnswer } };
  };
  '/api/v1/keys': {
    get: { parameters: { query?: { project?: string } }; responses: { 200: Answer<{ keys: McpApiKey[] }>; default: ErrorAnswer } };
    post: { requestBody: Json<NewMcpApiKey>; responses: { 201: Answer<McpApiKey>; default: ErrorAnswer } };
  };
  '/api/v1/agents': {
    get: { parameters: { query?: { project?: string } }; responses: { 200: Answer<{ agents: Agent[] }>; default: ErrorAnswer } };
    post: { requestBody: Json<AgentBody>; responses: { 201: Answer<Agent>; default: ErrorAnswer } };
  };
  '/api/v1/agents/{name}': {
    patch: Path<{ name: string }> & { requestBody: Json<AgentBody>; responses: { 200: Answer<Agent>; default: ErrorAnswer } };
    delete: Path<{ name: string }> & { responses: { 204: { content?: never }; default: ErrorAnswer } };
  };
  '/api/v1/agents/{name}/refresh': { post: Path<{ name: string }> & { responses: { 200: Answer<Agent>; default: ErrorAnswer } } };
  '/api/v1/agents/{name}/calls': { get: Path<{ name: string }> & { responses: { 200: Answer<{ hours: AgentCallHour[] }>; default: ErrorAnswer } } };
  '/api/v1/keys/{id}': { delete: Path<{ id: string }> & { responses: { 204: { content?: never }; default: ErrorAnswer } } };
  '/api/v1/me/connections': { get: { responses: { 200: Answer<{ connections: Connection[] }>; default: ErrorAnswer } } };
  '/api/v1/me/connections/{upstream}': { delete: Path<{ upstream: string }> & { responses: { 204: { content?: never }; default: ErrorAnswer } } };
  '/api/v1/tool-calls': {
    get: {
      parameters: { query?: { server?: string; project?: string; outcome?: ToolCallOutcome; limit?: number; before_id?: string } };
      responses: { 200: Answer<{ tool_calls: ToolCall[]; next_before_id: string | null }>; default: ErrorAnswer };
    };
  };
}
