import { runService } from '@arbor/platform';
import { syncDispatcherService } from './sync-dispatcher.module';

runService(syncDispatcherService);
