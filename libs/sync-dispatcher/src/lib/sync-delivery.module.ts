import { BeforeApplicationShutdown, DynamicModule, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { SyncDispatcherConfig } from '@arbor/config';
import { MetricsRegistry } from '@arbor/observability';
import { SyncDeliveryStore } from '@arbor/outbox';
import { DataSource } from 'typeorm';
import { Clock, systemClock } from './clock';
import { ClientCredentials } from '@arbor/contract';
import { ProductSyncClient } from './product-sync.client';
import { SyncDispatcher } from './sync-dispatcher';
import { SyncMetrics } from './sync-metrics';

export interface SyncDeliveryOptions {
  /** Tests pass a clock they drive. */
  clock?: Clock;
}

/** Starts the dispatcher once the application is up, and stops it before the database closes. */
@Injectable()
export class SyncDispatcherLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(private readonly dispatcher: SyncDispatcher) {}

  onApplicationBootstrap(): void {
    this.dispatcher.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.dispatcher.stop();
  }
}

/**
 * The sync dispatcher as a Nest feature: needs the control plane's database (DatabaseModule with
 * OUTBOX_ENTITIES and OUTBOX_MIGRATIONS) and the platform's MetricsRegistry.
 */
@Module({})
export class SyncDeliveryModule {
  static forConfig(config: SyncDispatcherConfig, options: SyncDeliveryOptions = {}): DynamicModule {
    const clock = options.clock ?? systemClock;
    return {
      module: SyncDeliveryModule,
      providers: [
        {
          provide: SyncDispatcher,
          inject: [getDataSourceToken(), MetricsRegistry],
          useFactory: (dataSource: DataSource, registry: MetricsRegistry) => {
            const store = new SyncDeliveryStore(dataSource);
            const endpoints = config.syncEndpoints;
            const tokens = new ClientCredentials({
              issuer: config.CP_OIDC_ISSUER_URL ?? '',
              clientId: config.CP_M2M_CLIENT_ID ?? '',
              clientSecret: config.CP_M2M_CLIENT_SECRET ?? '',
              now: () => clock.now(),
              timeoutMs: config.requestTimeoutMs,
            });
            return new SyncDispatcher({
              endpoints,
              store,
              client: new ProductSyncClient(tokens, clock, config.requestTimeoutMs),
              clock,
              leaseMs: config.leaseMs,
              pollIntervalMs: config.pollIntervalMs,
              retentionMs: config.retentionMs,
              listenUrl: config.CP_DATABASE_URL,
              metrics: new SyncMetrics(
                registry,
                endpoints.map((e) => e.product),
                () => store.backlog(),
                () => clock.now(),
              ),
            });
          },
        },
        SyncDispatcherLifecycle,
      ],
      exports: [SyncDispatcher],
    };
  }
}
