import { startShellApp } from '@arbor/ui-shell';
import { appPages, appRoutes } from './app/routes';

startShellApp({ product: { key: 'control-plane', title: 'Control plane' }, routes: appRoutes, pages: appPages });
