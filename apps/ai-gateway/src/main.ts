import { join } from 'node:path';
import { runService } from '@arbor/platform';
import { aiGatewayServiceWithWebUi } from './ai-gateway.module';

// The web UI's build is copied next to main.js (see project.json's build target).
runService(aiGatewayServiceWithWebUi(join(__dirname, 'web')));
