import type { SyncEndpoint } from '@arbor/config';
import { SyncDeliveryStore } from '@arbor/outbox';
import { testIssuer } from '@arbor/testing';
import { Registry } from 'prom-client';
import { Clock, systemClock } from '../lib/clock';
import { ClientCredentials } from '@arbor/contract';
import { ProductSyncClient } from '../lib/product-sync.client';
import { SyncDispatcher, SyncDispatcherOptions } from '../lib/sync-dispatcher';
import { SyncMetrics } from '../lib/sync-metrics';
import { OutboxDatabase } from './outbox-database';

export interface InProcessDispatcher {
  dispatcher: SyncDispatcher;
  registry: Registry;
  /** The value of one sample in the Prometheus text, or undefined when absent. */
  sample(name: string, labels: Record<string, string>): Promise<number | undefined>;
}

/**
 * The dispatcher as the app builds it, on `db`, with real tokens of control-plane-m2m from the
 * run's dev identity provider and LISTEN on the database; `overrides` for the clock and timings.
 */
export function inProcessDispatcher(
  db: OutboxDatabase,
  endpoints: SyncEndpoint[],
  overrides: Partial<Omit<SyncDispatcherOptions, 'endpoints' | 'store' | 'client'>> & { requestTimeoutMs?: number } = {},
): InProcessDispatcher {
  const clock: Clock = overrides.clock ?? systemClock;
  const requestTimeoutMs = overrides.requestTimeoutMs ?? 10_000;
  const store = new SyncDeliveryStore(db.dataSource);
  const tokens = new ClientCredentials({
    issuer: testIssuer(),
    clientId: 'control-plane-m2m',
    clientSecret: 'dev-control-plane-m2m-secret',
    now: () => clock.now(),
    timeoutMs: requestTimeoutMs,
  });
  const registry = new Registry();
  const dispatcher = new SyncDispatcher({
    endpoints,
    store,
    client: new ProductSyncClient(tokens, clock, requestTimeoutMs),
    leaseMs: 30_000,
    pollIntervalMs: 1000,
    retentionMs: 7 * 86_400_000,
    listenUrl: db.database.url,
    metrics: new SyncMetrics(
      registry,
      endpoints.map((e) => e.product),
      () => store.backlog(),
      () => clock.now(),
    ),
    ...overrides,
    clock,
  });
  return {
    dispatcher,
    registry,
    sample: async (name, labels) => {
      const text = await registry.metrics();
      const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
      return line === undefined ? undefined : Number(line.split(' ').pop());
    },
  };
}
