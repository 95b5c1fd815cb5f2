import { Global, Module } from '@nestjs/common';
import { McpApiKeyProject, McpApiKeysController } from './api-keys.controller';
import { ContractMcpAccessPolicy } from './contract-access-policy';
import { McpAccessPolicy } from './mcp-access';
import { McpProjectSync } from '../projects/project-sync';

/**
 * Who may use the MCP endpoints (McpAccessPolicy: persons through @arbor/contract, API keys) and
 * the API keys' admin routes. Global, so the runtime's transports find the policy. Needs
 * McpRegistryModule (ServerRegistry, the admin guard and the control plane).
 */
@Global()
@Module({
  controllers: [McpApiKeysController],
  // McpProjectSync: the handler ControlPlaneSyncModule finds when the app mounts it.
  providers: [McpApiKeyProject, ContractMcpAccessPolicy, { provide: McpAccessPolicy, useExisting: ContractMcpAccessPolicy }, McpProjectSync],
  exports: [McpAccessPolicy],
})
export class McpAccessModule {}
