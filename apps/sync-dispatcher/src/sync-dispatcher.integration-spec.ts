import { startService } from '@arbor/platform';
import { describeDatabaseBackedService } from '@arbor/testing';
import { syncDispatcherService } from './sync-dispatcher.module';

describeDatabaseBackedService({
  app: 'sync-dispatcher',
  databaseVariable: 'CP_DATABASE_URL',
  listenVariable: 'CP_DISPATCHER_LISTEN_ADDR',
  logVariable: 'CP_LOG',
  apiReference: true,
  start: (env) => startService(syncDispatcherService, env),
});
