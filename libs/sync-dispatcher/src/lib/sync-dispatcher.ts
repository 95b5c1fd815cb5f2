import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import type { SyncEndpoint } from '@arbor/config';
import { currentTraceparent, runInTrace } from '@arbor/observability';
import { ClaimedDelivery, SyncDeliveryStore } from '@arbor/outbox';
import { Clock, WakeSignal } from './clock';
import { OutboxListener } from './outbox-listener';
import { ProductSyncClient, SyncOutcome } from './product-sync.client';
import { retryDelay } from './retry-schedule';
import { SyncMetrics } from './sync-metrics';

export interface SyncDispatcherOptions {
  endpoints: SyncEndpoint[];
  store: SyncDeliveryStore;
  client: ProductSyncClient;
  clock: Clock;
  /** How long a claim keeps other dispatchers off its deliveries; longer than the request timeout. */
  leaseMs: number;
  /** The fallback wake-up when no notification comes. */
  pollIntervalMs: number;
  /** Delivered rows older than this are deleted. */
  retentionMs: number;
  /** LISTEN here for new outbox rows; without it the dispatcher only polls. */
  listenUrl?: string;
  metrics?: SyncMetrics;
  /** Most deliveries coalesced into one call. */
  batchSize?: number;
  pruneIntervalMs?: number;
  /** [0, 1), for the retry jitter. */
  random?: () => number;
}

/** Most events turned into deliveries per statement. */
const FAN_OUT_BATCH = 1000;
const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_PRUNE_INTERVAL_MS = 10 * 60_000;

/**
 * Drains the outbox into project-sync calls, at least once.
 *
 * - Fan-out: each new `projects.changed` event becomes one pending delivery per product.
 * - One loop per product, so a product that is down or slow holds up nobody else: it claims the
 *   product's due deliveries with a lease, coalesces them into one POST carrying the union of their
 *   slugs, and records 2xx as delivered or anything else as a failure due again after a back-off
 *   (5 s doubling to 5 min, with jitter), for ever.
 * - Wake-ups: NOTIFY on the outbox channel, a poll as the fallback, and the next due retry.
 * - Pruning: delivered rows and fully delivered events older than the retention.
 */
export class SyncDispatcher {
  private readonly logger = new Logger('sync');
  private readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly fanOutSignal = new WakeSignal();
  private readonly pruneSignal = new WakeSignal();
  private readonly productSignals = new Map<string, WakeSignal>();
  private readonly listener?: OutboxListener;
  private readonly batchSize: number;
  private running = false;
  private loops: Promise<void>[] = [];
  private claims = 0;

  constructor(private readonly options: SyncDispatcherOptions) {
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    for (const endpoint of options.endpoints) this.productSignals.set(endpoint.product, new WakeSignal());
    if (options.listenUrl) this.listener = new OutboxListener(options.listenUrl, options.clock, () => this.notified());
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.options.endpoints.length === 0) {
      this.logger.warn('no sync targets (CP_<PRODUCT>_API_URL): nothing to deliver, outbox events are left undispatched');
    } else {
      this.logger.log('delivering project sync', { products: this.options.endpoints.map((e) => `${e.product} ${e.url}`), instance: this.instanceId });
      this.listener?.start();
      this.loops.push(this.fanOutLoop(), ...this.options.endpoints.map((endpoint) => this.productLoop(endpoint)));
    }
    this.loops.push(this.pruneLoop());
  }

  /** Stops claiming; calls in flight finish (within the request timeout) and are recorded. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wakeAll();
    this.pruneSignal.wake();
    await Promise.all(this.loops);
    this.loops = [];
    await this.listener?.stop();
  }

  /**
   * A NOTIFY on the outbox channel: a new event (`projects.changed`), an operator's retry
   * (`sync.retry`) or a reconnect. The fan-out runs, then every product looks for due deliveries.
   */
  notified(): void {
    this.fanOutSignal.wake();
  }

  private wakeAll(): void {
    this.fanOutSignal.wake();
    for (const signal of this.productSignals.values()) signal.wake();
  }

  private async fanOutLoop(): Promise<void> {
    const products = this.options.endpoints.map((endpoint) => endpoint.product);
    let notified = true;
    while (this.running) {
      let more = false;
      try {
        const events = await this.options.store.fanOut(products, new Date(this.options.clock.now()), FAN_OUT_BATCH);
        // After a notification the products look even when this fan-out found nothing: another
        // replica may have taken the events, or an operator made a delivery due.
        if (events > 0 || notified) for (const signal of this.productSignals.values()) signal.wake();
        more = events === FAN_OUT_BATCH;
      } catch (error) {
        this.logger.warn('could not fan out outbox events', { error: (error as Error).message });
      }
      notified = more || (await this.fanOutSignal.sleep(this.options.clock, this.options.pollIntervalMs));
    }
  }

  private async productLoop(endpoint: SyncEndpoint): Promise<void> {
    const { clock, store, leaseMs, pollIntervalMs } = this.options;
    const signal = this.productSignals.get(endpoint.product) ?? new WakeSignal();
    while (this.running) {
      let sleepMs = pollIntervalMs;
      try {
        const claimedBy = `${this.instanceId}#${++this.claims}`;
        const now = clock.now();
        const batch = await store.claim({ product: endpoint.product, claimedBy, now: new Date(now), until: new Date(now + leaseMs), limit: this.batchSize });
        if (batch.length > 0) {
          await this.deliver(endpoint, batch, claimedBy, now + leaseMs);
          continue;
        }
        const due = await store.nextDue(endpoint.product);
        if (due) sleepMs = Math.min(Math.max(due.getTime() - clock.now(), 0), pollIntervalMs);
      } catch (error) {
        this.logger.warn('could not claim or record deliveries', { product: endpoint.product, error: (error as Error).message });
      }
      await signal.sleep(clock, sleepMs);
    }
  }

  private async deliver(endpoint: SyncEndpoint, batch: ClaimedDelivery[], claimedBy: string, leaseEnd: number): Promise<void> {
    const { clock, store, client, metrics, leaseMs } = this.options;
    const ids = batch.map((row) => row.id);
    if (!this.running) {
      await store.release(ids, claimedBy, new Date(clock.now()));
      return;
    }
    const slugs = [...new Set(batch.flatMap((row) => row.slugs))].sort();
    // The oldest change's trace carries the call; the others are named in the log line.
    const parent = batch.find((row) => row.traceparent)?.traceparent ?? undefined;
    await runInTrace(
      'sync.deliver',
      async () => {
        const started = clock.now();
        // The margin covers clock skew between replicas: no call may outlive the lease.
        const deadline = leaseEnd - Math.min(leaseMs / 10, 3000);
        const outcome = await client.send({ url: endpoint.url, slugs, traceparent: currentTraceparent(), deadline });
        const now = clock.now();
        const attempt = Math.max(...batch.map((row) => row.attempts)) + 1;
        const fields = { product: endpoint.product, deliveries: batch.length, slugs: slugs.length, attempt, duration_ms: now - started };
        metrics?.attempted(endpoint.product, outcome.kind, batch.length);
        if (outcome.kind === 'delivered') {
          await store.markDelivered({ ids, claimedBy, now: new Date(now), status: outcome.status });
          metrics?.delivered(
            endpoint.product,
            batch.map((row) => row.createdAt),
            now,
          );
          this.logger.log('sync delivered', { ...fields, status: outcome.status });
          return;
        }
        // One draw per call, so deliveries that failed together and had the same count stay together.
        const random = (this.options.random ?? Math.random)();
        const retries = batch.map((row) => ({ id: row.id, nextAttemptAt: new Date(now + retryDelay(row.attempts + 1, random)) }));
        await store.markFailed({ claimedBy, now: new Date(now), status: statusOf(outcome), error: outcome.error, retries });
        const next = Math.min(...retries.map((retry) => retry.nextAttemptAt.getTime()));
        this.logger.warn('sync failed', { ...fields, outcome: outcome.kind, status: statusOf(outcome), error: outcome.error, next_attempt_at: new Date(next).toISOString() });
      },
      { traceparent: parent },
    );
  }

  private async pruneLoop(): Promise<void> {
    const { clock, store, retentionMs } = this.options;
    while (this.running) {
      try {
        const pruned = await store.prune(new Date(clock.now() - retentionMs));
        if (pruned.deliveries > 0 || pruned.events > 0) this.logger.log('pruned delivered sync rows', pruned);
      } catch (error) {
        this.logger.warn('could not prune delivered sync rows', { error: (error as Error).message });
      }
      await this.pruneSignal.sleep(clock, this.options.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS);
    }
  }
}

function statusOf(outcome: SyncOutcome): number | null {
  return 'status' in outcome ? outcome.status : null;
}
