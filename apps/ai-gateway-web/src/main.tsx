import { startShellApp } from '@arbor/ui-shell';
import { aiGatewayPages, aiGatewayRoutes } from './app/routes';

startShellApp({ product: { key: 'ai-gateway', title: 'AI gateway' }, routes: aiGatewayRoutes, pages: aiGatewayPages });
