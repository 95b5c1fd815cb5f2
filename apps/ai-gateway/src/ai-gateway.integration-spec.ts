import { startService } from '@arbor/platform';
import { describeDatabaseBackedService } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';

describeDatabaseBackedService({
  app: 'ai-gateway',
  databaseVariable: 'AIGW_DATABASE_URL',
  listenVariable: 'AIGW_LISTEN_ADDR',
  logVariable: 'AIGW_LOG',
  unknownRoute: '/api/v1/nowhere',
  apiReference: true,
  start: (env) => startService(aiGatewayService, env),
});
