import { DynamicModule, Module } from '@nestjs/common';
import { SyncDispatcherConfig } from '@arbor/config';
import { DatabaseModule, PlatformModule, ServiceDefinition } from '@arbor/platform';

@Module({})
export class SyncDispatcherModule {
  static forConfig(config: SyncDispatcherConfig): DynamicModule {
    return {
      module: SyncDispatcherModule,
      imports: [
        // The outbox lives in the control plane's database: ready means that database answers.
        PlatformModule.forService(config, { readiness: 'database' }),
        DatabaseModule.forRoot({ url: config.CP_DATABASE_URL, applicationName: 'sync-dispatcher' }),
      ],
    };
  }
}

export const syncDispatcherService: ServiceDefinition<SyncDispatcherConfig> = {
  schema: SyncDispatcherConfig,
  module: (config) => SyncDispatcherModule.forConfig(config),
};
