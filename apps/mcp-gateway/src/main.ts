import { runService } from '@arbor/platform';
import { mcpGatewayService } from './mcp-gateway.module';

runService(mcpGatewayService);
