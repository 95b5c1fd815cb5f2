import { startShellApp } from '@arbor/ui-shell';
import { mcpGatewayPages, mcpGatewayRoutes } from './app/routes';

startShellApp({ product: { key: 'mcp-gateway', title: 'MCP gateway' }, routes: mcpGatewayRoutes, pages: mcpGatewayPages });
