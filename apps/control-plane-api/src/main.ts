import { join } from 'node:path';
import { controlPlaneServiceWithWebUi } from '@arbor/control-plane';
import { runService } from '@arbor/platform';

// The web UI's build is copied next to main.js (see project.json's build target).
runService(controlPlaneServiceWithWebUi(join(__dirname, 'web')));
