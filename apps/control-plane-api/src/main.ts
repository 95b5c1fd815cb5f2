import { controlPlaneService } from '@arbor/control-plane';
import { runService } from '@arbor/platform';

runService(controlPlaneService);
