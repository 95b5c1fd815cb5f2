import { runService } from '@arbor/platform';
import { aiGatewayService } from './ai-gateway.module';

runService(aiGatewayService);
