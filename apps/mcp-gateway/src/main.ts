import { join } from 'node:path';
import { runService } from '@arbor/platform';
import { mcpGatewayServiceWithWebUi } from './mcp-gateway.module';

// The web UI's build is copied next to main.js (see project.json's build target).
runService(mcpGatewayServiceWithWebUi(join(__dirname, 'web')));
