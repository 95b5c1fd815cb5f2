export * from './lib/clock';
export * from './lib/retry-schedule';
export * from './lib/product-sync.client';
export * from './lib/sync-metrics';
export * from './lib/sync-dispatcher';
export * from './lib/sync-delivery.module';
