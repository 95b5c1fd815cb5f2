import { DynamicModule, Module } from '@nestjs/common';
import { SyncDispatcherConfig } from '@arbor/config';
import { OUTBOX_ENTITIES, OUTBOX_MIGRATIONS } from '@arbor/outbox';
import { DatabaseModule, OpenApiModule, PlatformModule, ServiceDefinition } from '@arbor/platform';
import { SyncDeliveryModule } from '@arbor/sync-dispatcher';

@Module({})
export class SyncDispatcherModule {
  static forConfig(config: SyncDispatcherConfig): DynamicModule {
    return {
      module: SyncDispatcherModule,
      imports: [
        // The outbox lives in the control plane's database: ready means that database answers.
        PlatformModule.forService(config, { readiness: 'database' }),
        // The outbox migrations, so the dispatcher works whether it or the control plane starts first.
        DatabaseModule.forRoot({
          url: config.CP_DATABASE_URL,
          variable: 'CP_DATABASE_URL',
          applicationName: 'sync-dispatcher',
          entities: OUTBOX_ENTITIES,
          migrations: OUTBOX_MIGRATIONS,
        }),
        SyncDeliveryModule.forConfig(config),
        // No API of its own: what an operator reads (health, readiness, metrics), described as every service's is.
        OpenApiModule.forService({
          title: 'Arbor sync dispatcher',
          description:
            "Delivers the control plane's project changes (its outbox) to every product's sync endpoint, at least once, with retries. " +
            'It has no API of its own: health (`/healthz`), readiness (`/readyz`: the control plane database answers) and Prometheus metrics (`/metrics`).',
        }),
      ],
    };
  }
}

export const syncDispatcherService: ServiceDefinition<SyncDispatcherConfig> = {
  schema: SyncDispatcherConfig,
  module: (config) => SyncDispatcherModule.forConfig(config),
};
