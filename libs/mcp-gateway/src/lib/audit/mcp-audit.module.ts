import { Global, Module } from '@nestjs/common';
import { DatabaseToolCallAudit } from './database-tool-call-audit';
import { ToolCallAudit } from './tool-call-audit';
import { ToolCallsController } from './tool-calls.controller';

/**
 * The audit of tool calls (ToolCallAudit, in PostgreSQL) and its admin route /api/v1/tool-calls.
 * Global, so the runtime's catalogue finds it. Needs McpRegistryModule (ServerRegistry, the admin
 * guard) and the app's DatabaseModule with MCP_GATEWAY_ENTITIES and MCP_GATEWAY_MIGRATIONS.
 */
@Global()
@Module({
  controllers: [ToolCallsController],
  providers: [DatabaseToolCallAudit, { provide: ToolCallAudit, useExisting: DatabaseToolCallAudit }],
  exports: [ToolCallAudit],
})
export class McpAuditModule {}
