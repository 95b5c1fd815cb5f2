import { Logger } from '@nestjs/common';
import type { ProductBacklog } from '@arbor/outbox';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SyncOutcome } from './product-sync.client';

export type DeliveryOutcome = SyncOutcome['kind'];

// Commit to 2xx: milliseconds when healthy, up to hours while a product is down.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400];

/** A queue snapshot is shared by the gauges of one scrape. */
const SNAPSHOT_TTL_MS = 1000;

/**
 * The dispatcher's Prometheus metrics. Deliveries count rows (one event for one product), so a
 * coalesced call of 40 rows adds 40. Queue depth and oldest pending age are read from the
 * database when scraped.
 */
export class SyncMetrics {
  private readonly logger = new Logger('sync');
  readonly deliveries: Counter<'product' | 'outcome'>;
  readonly latency: Histogram<'product'>;
  private snapshot?: { at: number; backlog: Promise<ProductBacklog[]> };

  constructor(
    registry: Registry,
    private readonly products: string[],
    private readonly readBacklog: () => Promise<ProductBacklog[]>,
    private readonly now: () => number,
  ) {
    this.deliveries = new Counter({
      name: 'sync_deliveries_total',
      help: 'Project-sync delivery attempts per product, counted per delivery (event × product), by outcome: delivered, rejected (non-2xx), timeout, unreachable, no_token.',
      labelNames: ['product', 'outcome'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'sync_delivery_latency_seconds',
      help: 'Time from the change (its outbox event) to the 2xx answer of the product.',
      labelNames: ['product'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    // `collect` runs on each scrape; arrow functions cannot receive the gauge as `this`.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const metrics = this;
    new Gauge({
      name: 'sync_queue_depth',
      help: 'Deliveries not yet answered with 2xx, per product.',
      labelNames: ['product'],
      registers: [registry],
      async collect() {
        const backlog = await metrics.currentBacklog();
        if (!backlog) return;
        this.reset();
        for (const product of metrics.productsIn(backlog)) this.set({ product }, backlog.find((b) => b.product === product)?.pending ?? 0);
      },
    });
    new Gauge({
      name: 'sync_oldest_pending_age_seconds',
      help: 'Age of the oldest change not yet delivered, per product (0 when none is pending).',
      labelNames: ['product'],
      registers: [registry],
      async collect() {
        const backlog = await metrics.currentBacklog();
        if (!backlog) return;
        this.reset();
        for (const product of metrics.productsIn(backlog)) {
          const oldest = backlog.find((b) => b.product === product)?.oldestCreatedAt;
          this.set({ product }, oldest ? Math.max(0, (metrics.now() - oldest.getTime()) / 1000) : 0);
        }
      },
    });
  }

  attempted(product: string, outcome: DeliveryOutcome, deliveries: number): void {
    this.deliveries.inc({ product, outcome }, deliveries);
  }

  delivered(product: string, createdAt: Date[], at: number): void {
    for (const created of createdAt) this.latency.observe({ product }, Math.max(0, (at - created.getTime()) / 1000));
  }

  /** Configured products (0 when idle) and any other product with rows still pending. */
  private productsIn(backlog: ProductBacklog[]): string[] {
    return [...new Set([...this.products, ...backlog.map((b) => b.product)])].sort();
  }

  /** Undefined when the database cannot be read: the gauges keep their last values rather than fail the scrape. */
  private async currentBacklog(): Promise<ProductBacklog[] | undefined> {
    const at = Date.now();
    if (!this.snapshot || at - this.snapshot.at > SNAPSHOT_TTL_MS) this.snapshot = { at, backlog: this.readBacklog() };
    try {
      return await this.snapshot.backlog;
    } catch (error) {
      this.snapshot = undefined;
      this.logger.warn('could not read the delivery queue for metrics', { error: (error as Error).message });
      return undefined;
    }
  }
}
