import { runService } from '@arbor/platform';
import { controlPlaneService } from './control-plane.module';

runService(controlPlaneService);
