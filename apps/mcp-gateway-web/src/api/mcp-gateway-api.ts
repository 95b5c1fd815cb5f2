// The MCP gateway's admin API as this UI calls it, typed from apps/mcp-gateway/openapi.json (this
// app's generate-api target writes mcp-gateway.schema.generated.ts; `npm run api:update` refreshes
// the document), as every product UI's client is. The names the pages use for its schemas:
import type { components, paths } from './mcp-gateway.schema.generated';

export type { paths };
type Schemas = components['schemas'];

/** An upstream as the admin API shows it: header names, never their values. */
export type Upstream = Schemas['UpstreamResponse'];
export type Transport = Upstream['transport'];
/** An upstream's `auth` as the admin API shows it: the client secret only as `has_client_secret`. */
export type UpstreamAuth = Upstream['auth'];
/** What the upstream form sends: every field of a new upstream, or the fields a change replaces. */
export type UpstreamBody = Schemas['UpdateUpstreamDto'] & Partial<Pick<Schemas['CreateUpstreamDto'], 'name'>>;
export type NewUpstreamBody = Schemas['CreateUpstreamDto'];
/** How the gateway authenticates to an upstream, as the admin API takes it (client_secret write-only). */
export type UpstreamAuthBody = NonNullable<UpstreamBody['auth']>;

/** The role an item of a virtual server needs on its project: `viewer` is any role. */
export type ItemRole = Schemas['ServerResponse']['tool_roles'][string];
export type VirtualServer = Schemas['ServerResponse'];
/** What a virtual server takes from one upstream: `'*'` or the names. */
export type Selection = Schemas['SelectionResponse'];
/** An A2A agent a virtual server offers as one tool. */
export type AgentSelection = Schemas['AgentSelectionResponse'];
export const isAgentSelection = (selection: Selection | AgentSelection): selection is AgentSelection => 'agent' in selection;
/** What the server form sends: every field of a new server, or the fields a change replaces. */
export type ServerBody = Schemas['UpdateServerDto'] & Partial<Pick<Schemas['CreateServerDto'], 'id'>>;
export type NewServerBody = Schemas['CreateServerDto'];

/** A tool as the caller's MCP client lists it. */
export type McpTool = Schemas['McpToolResponse'];
/** A tools/call result. */
export type ToolResult = Schemas['ToolResultResponse'];
/** An item of an upstream's catalogue, with the caller's servers that expose it. */
export type CatalogueItem = Schemas['CatalogueItemResponse'];

export type McpApiKey = Schemas['McpApiKeyResponse'];
export type NewMcpApiKey = Schemas['CreateMcpApiKeyDto'];

/** The signed-in person's connection to an `oauth` upstream (GET /api/v1/me/connections). */
export type Connection = Schemas['ConnectionResponse'];

/** One tool call of the audit (GET /api/v1/tool-calls), newest first. */
export type ToolCall = Schemas['ToolCallResponse'];
export type ToolCallOutcome = ToolCall['outcome'];
/** One tool's calls in one hour (this replica's). */
export type ToolCallHour = Schemas['ToolCallHourResponse'];

/** An A2A agent as the admin API shows it (/api/v1/agents): header names and whether a client secret is kept, never the values. */
export type Agent = Schemas['AgentResponse'];
export type AgentAuthType = Agent['auth']['type'];
/** What the agent form sends: every field of a new agent, or the fields a change replaces. */
export type AgentBody = Schemas['UpdateAgentDto'] & Partial<Pick<Schemas['CreateAgentDto'], 'name'>>;
export type NewAgentBody = Schemas['CreateAgentDto'];
/** One A2A method's calls to an agent in one hour (this replica's). */
export type AgentCallHour = Schemas['AgentCallHourResponse'];
