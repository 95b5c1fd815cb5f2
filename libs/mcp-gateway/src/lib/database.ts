import { AddVirtualServerGuardrails1764000000500 } from './migrations/1764000000500-AddVirtualServerGuardrails';
import { AddUpstreamAuth1764000000700 } from './migrations/1764000000700-AddUpstreamAuth';
import { CreateOAuthConnections1764000000710 } from './migrations/1764000000710-CreateOAuthConnections';
import { OAuthClient, OAuthConnection } from './credentials/oauth/oauth-connection.entity';
import { CreateMcpApiKeys1764000000300 } from './migrations/1764000000300-CreateMcpApiKeys';
import { McpApiKey } from './access/mcp-api-key.entity';
import { CreateUpstreams1764000000100 } from './migrations/1764000000100-CreateUpstreams';
import { CreateVirtualServers1764000000200 } from './migrations/1764000000200-CreateVirtualServers';
import { Upstream } from './registry/upstream.entity';
import { VirtualServer } from './registry/virtual-server.entity';
import { ToolCallRow } from './audit/tool-call.entity';
import { AddVirtualServerAccessRules1764000000600 } from './migrations/1764000000600-AddVirtualServerAccessRules';
import { AddMcpApiKeyTools1764000000601 } from './migrations/1764000000601-AddMcpApiKeyTools';
import { CreateToolCallAudit1764000000602 } from './migrations/1764000000602-CreateToolCallAudit';
import { Agent } from './agents/agent.entity';
import { CreateAgents1764000000800 } from './migrations/1764000000800-CreateAgents';
import { AddAgentCallerAuth1764000000810 } from './migrations/1764000000810-AddAgentCallerAuth';

/** For the gateway service's DatabaseModule.forRoot. */ import { AddControlPlaneProjectIds1764000000400 } from './migrations/1764000000400-AddControlPlaneProjectIds';

export const MCP_GATEWAY_ENTITIES = [Upstream, VirtualServer, McpApiKey, ToolCallRow, Agent, OAuthConnection, OAuthClient];
export const MCP_GATEWAY_MIGRATIONS = [
  CreateUpstreams1764000000100,
  CreateVirtualServers1764000000200,
  CreateMcpApiKeys1764000000300,
  AddControlPlaneProjectIds1764000000400,
  AddVirtualServerGuardrails1764000000500,
  AddVirtualServerAccessRules1764000000600,
  AddMcpApiKeyTools1764000000601,
  CreateToolCallAudit1764000000602,
  AddUpstreamAuth1764000000700,
  CreateOAuthConnections1764000000710,
  CreateAgents1764000000800,
  AddAgentCallerAuth1764000000810,
];
