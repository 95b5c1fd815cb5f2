import { startService } from '@arbor/platform';
import { describeDatabaseBackedService } from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

describeDatabaseBackedService({
  app: 'mcp-gateway',
  databaseVariable: 'MCPGW_DATABASE_URL',
  listenVariable: 'MCPGW_LISTEN_ADDR',
  logVariable: 'MCPGW_LOG',
  apiReference: true,
  start: (env) => startService(mcpGatewayService, env),
});
