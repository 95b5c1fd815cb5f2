import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { ControlPlaneConfig } from '@arbor/config';
import { OUTBOX_CHANNEL, SYNC_RETRY_REQUESTED, SyncDelivery } from '@arbor/outbox';
import { DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit.service';
import { DeliveryView } from './dto/list-sync-deliveries.query';
import { SyncDeliveryAlreadyDelivered, SyncDeliveryInFlight, SyncDeliveryNotFound } from './sync.exception';

export interface DeliveryFilter {
  view: DeliveryView;
  product?: string;
  limit: number;
  afterId?: string;
}

export interface ProductBacklogSummary {
  product: string;
  pending: number;
  failing: number;
  oldestPendingAt: Date | null;
}

export interface DeliveryPage {
  deliveries: SyncDelivery[];
  /** The last id of this page when there is a next one. */
  nextAfterId: string | null;
  summary: ProductBacklogSummary[];
}

/**
 * The operators' view of what the sync dispatcher still owes products, and "retry now". The
 * dispatcher owns the rows (`@arbor/outbox`); this only reads them and moves a due time.
 */
@Injectable()
export class SyncDeliveriesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly config: ControlPlaneConfig,
  ) {}

  async list(filter: DeliveryFilter): Promise<DeliveryPage> {
    const query = this.dataSource
      .getRepository(SyncDelivery)
      .createQueryBuilder('d')
      .where("d.state = 'pending'")
      .orderBy('d.id', 'ASC')
      .limit(filter.limit + 1);
    if (filter.view === 'failing') query.andWhere('d.attempts > 0');
    if (filter.product) query.andWhere('d.product = :product', { product: filter.product });
    if (filter.afterId) query.andWhere('d.id > :afterId', { afterId: filter.afterId });
    const [rows, summary] = await Promise.all([query.getMany(), this.summary()]);
    const deliveries = rows.slice(0, filter.limit);
    return { deliveries, nextAfterId: rows.length > filter.limit ? deliveries[deliveries.length - 1].id : null, summary };
  }

  async get(id: string): Promise<SyncDelivery> {
    const delivery = await this.dataSource.getRepository(SyncDelivery).findOneBy({ id });
    if (!delivery) throw new SyncDeliveryNotFound(id);
    return delivery;
  }

  /**
   * Makes a pending delivery due now and wakes the dispatchers (NOTIFY at commit), audited as
   * sync_delivery.retried. The attempt count and history stay: it is one more try, not a new delivery.
   */
  async retryNow(actor: Principal, id: string): Promise<SyncDelivery> {
    await this.dataSource.transaction(async (manager) => {
      // The database's clock, as the dispatcher's claims are compared by its queries.
      const [row] = (await manager.query(
        `select product, event_id::text as event_id, state, attempts, next_attempt_at, delivered_at, claimed_until,
                coalesce(claimed_until > now(), false) as in_flight
           from sync_deliveries where id = $1 for update`,
        [id],
      )) as {
        product: string;
        event_id: string;
        state: string;
        attempts: number;
        next_attempt_at: Date;
        delivered_at: Date | null;
        claimed_until: Date | null;
        in_flight: boolean;
      }[];
      if (!row) throw new SyncDeliveryNotFound(id);
      if (row.state === 'delivered') throw new SyncDeliveryAlreadyDelivered(id, row.delivered_at);
      // Its lease is its due time: moving that would let a second dispatcher send it alongside the first.
      if (row.in_flight && row.claimed_until) throw new SyncDeliveryInFlight(id, row.claimed_until);
      await manager.query('update sync_deliveries set next_attempt_at = now() where id = $1', [id]);
      await this.audit.record(manager, actor, 'sync_delivery.retried', {
        targetId: id,
        details: { product: row.product, event_id: row.event_id, attempts: row.attempts, was_due_at: row.next_attempt_at.toISOString() },
      });
      await manager.query('select pg_notify($1, $2)', [OUTBOX_CHANNEL, SYNC_RETRY_REQUESTED]);
    });
    return this.get(id);
  }

  /** Pending and failing counts by product: every configured sync target, and any product with pending rows. */
  private async summary(): Promise<ProductBacklogSummary[]> {
    const rows = (await this.dataSource.query(
      `select product, count(*)::int as pending, (count(*) filter (where attempts > 0))::int as failing, min(created_at) as oldest
         from sync_deliveries where state = 'pending' group by product`,
    )) as { product: string; pending: number; failing: number; oldest: Date }[];
    const byProduct = new Map<string, ProductBacklogSummary>(
      Object.keys(this.config.syncTargets).map((product) => [product, { product, pending: 0, failing: 0, oldestPendingAt: null }]),
    );
    for (const row of rows) byProduct.set(row.product, { product: row.product, pending: row.pending, failing: row.failing, oldestPendingAt: row.oldest });
    return [...byProduct.values()].sort((a, b) => a.product.localeCompare(b.product));
  }
}
