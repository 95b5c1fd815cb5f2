// What the MCP gateway app wires: persistence, the registry (MCPGW_CONFIG + admin API), the
// runtime (upstream sessions, federation, transports) and access (persons, API keys).
export * from './lib/database';
export * from './lib/registry/server-registry';
export * from './lib/registry/upstream-catalogue';
export * from './lib/registry/mcp-registry.module';
export * from './lib/access/mcp-access';
export * from './lib/access/mcp-access.module';
export * from './lib/audit/mcp-audit.module';
export { ToolCallAudit, type ToolCallEvent, type ToolCallOutcome } from './lib/audit/tool-call-audit';
export * from './lib/runtime-options';
export * from './lib/runtime.module';
export { SUPPORTED_PROTOCOL_VERSIONS as MCP_GATEWAY_PROTOCOL_VERSIONS } from './lib/protocol/protocol-versions';
export { NAME_SEPARATOR, URI_PREFIX } from './lib/catalogue/catalogue-view';
export { CatalogueAccess, type CatalogueCaller, type CatalogueItemRef } from './lib/catalogue/catalogue-access';
export * from './lib/dashboard/mcp-dashboard';
export { McpProjectSync } from './lib/projects/project-sync';
export { ToolCallGuardrails } from './lib/guardrails/tool-call-guardrails';
export { McpAgentsModule } from './lib/agents/agents.module';
export type { AgentAuth, AgentDefinition } from './lib/agents/agent-definition';
export * from './lib/web-ui/web-ui.module';
// The credentials module of upstreams (tool servers and A2A agents): one `auth` per upstream or agent.
export * from './lib/credentials/upstream-auth';
export * from './lib/credentials/credential-caller';
export * from './lib/credentials/credentials.exception';
export * from './lib/credentials/upstream-credentials';
export type { ConnectionResponse } from './lib/credentials/oauth/oauth.controller';
