import { DataSource } from 'typeorm';
import { PROJECTS_CHANGED } from './outbox.writer';

/**
 * NOTIFY payload on the outbox channel (OUTBOX_CHANNEL) asking dispatchers to look for due
 * deliveries now, e.g. after an operator made one due (`next_attempt_at = now()`).
 */
export const SYNC_RETRY_REQUESTED = 'sync.retry';

/** A delivery the caller has claimed: it alone may send it until the lease ends. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  slugs: string[];
  traceparent: string | null;
  createdAt: Date;
  /** Attempts before this one. */
  attempts: number;
}

export interface Claim {
  product: string;
  /** Unique per claim; completing, failing or releasing needs it, so a late answer cannot touch a newer claim. */
  claimedBy: string;
  now: Date;
  /** The lease: until then nobody else claims these rows; after it they are due again. */
  until: Date;
  limit: number;
}

export interface AttemptResult {
  ids: string[];
  claimedBy: string;
  now: Date;
  /** HTTP status, or null when there was no answer. */
  status: number | null;
}

export interface ProductBacklog {
  product: string;
  pending: number;
  oldestCreatedAt: Date;
}

const FAN_OUT = `
  with events as (
    select id, payload, traceparent, created_at
      from outbox_events
     where dispatched_at is null and topic = $4
     order by id
     limit $2
       for update skip locked
  ), deliveries as (
    insert into sync_deliveries (product, event_id, slugs, traceparent, created_at, next_attempt_at)
    select target.product, e.id, coalesce(e.payload -> 'slugs', '[]'::jsonb), e.traceparent, e.created_at, $3
      from events e cross join unnest($1::text[]) as target (product)
        on conflict (event_id, product) do nothing
  )
  update outbox_events o set dispatched_at = $3 from events e where o.id = e.id
  returning o.id`;

// Rows are due when next_attempt_at has passed; a claim moves next_attempt_at to the lease's end,
// so rows of a dispatcher that died become due again by themselves.
const CLAIM = `
  with due as (
    select id
      from sync_deliveries
     where product = $1 and state = 'pending' and next_attempt_at <= $2
     order by next_attempt_at, id
     limit $3
       for update skip locked
  )
  update sync_deliveries d
     set claimed_by = $4, claimed_until = $5, next_attempt_at = $5
    from due
   where d.id = due.id
  returning d.id, d.event_id, d.slugs, d.traceparent, d.created_at, d.attempts`;

const MARK_DELIVERED = `
  update sync_deliveries
     set state = 'delivered', delivered_at = $3, last_attempt_at = $3, attempts = attempts + 1,
         last_status = $4, last_error = null, claimed_by = null, claimed_until = null
   where id = any($1::bigint[]) and claimed_by = $2 and state = 'pending'`;

const MARK_FAILED = `
  update sync_deliveries d
     set attempts = d.attempts + 1, last_attempt_at = $2, last_status = $3, last_error = $4,
         next_attempt_at = retry.next_attempt_at, claimed_by = null, claimed_until = null
    from unnest($5::bigint[], $6::timestamptz[]) as retry (id, next_attempt_at)
   where d.id = retry.id and d.claimed_by = $1 and d.state = 'pending'`;

const RELEASE = `
  update sync_deliveries
     set next_attempt_at = $3, claimed_by = null, claimed_until = null
   where id = any($1::bigint[]) and claimed_by = $2 and state = 'pending'`;

/**
 * The dispatcher's queries on `sync_deliveries`, each one statement (so each its own short
 * transaction): fan out, claim with a lease, complete, fail with a retry time, release, prune.
 * Times come from the caller's clock, so tests can drive the schedule.
 */
export class SyncDeliveryStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Turns up to `limit` undispatched `projects.changed` events into one pending delivery per
   * product and marks them dispatched. `FOR UPDATE SKIP LOCKED` sees committed rows only, and two
   * dispatchers never take the same event. Returns how many events it dispatched.
   */
  async fanOut(products: string[], now: Date, limit: number): Promise<number> {
    const { affected } = await this.execute(FAN_OUT, [products, limit, now, PROJECTS_CHANGED]);
    return affected;
  }

  /** Due deliveries of one product, oldest first, leased to `claim.claimedBy` until `claim.until`. */
  async claim(claim: Claim): Promise<ClaimedDelivery[]> {
    const { rows } = await this.execute<{ id: string; event_id: string; slugs: string[]; traceparent: string | null; created_at: Date; attempts: number }>(CLAIM, [
      claim.product,
      claim.now,
      claim.limit,
      claim.claimedBy,
      claim.until,
    ]);
    return rows
      .map((row) => ({ id: row.id, eventId: row.event_id, slugs: row.slugs, traceparent: row.traceparent, createdAt: row.created_at, attempts: row.attempts }))
      .sort((a, b) => Number(BigInt(a.eventId) - BigInt(b.eventId)));
  }

  /** The product answered 2xx. Returns how many rows were still this claim's to complete. */
  async markDelivered(result: AttemptResult): Promise<number> {
    const { affected } = await this.execute(MARK_DELIVERED, [result.ids, result.claimedBy, result.now, result.status]);
    return affected;
  }

  /** The attempt failed: count it, keep why, and make each row due again at its own retry time. */
  async markFailed(result: Omit<AttemptResult, 'ids'> & { error: string; retries: { id: string; nextAttemptAt: Date }[] }): Promise<number> {
    const { affected } = await this.execute(MARK_FAILED, [
      result.claimedBy,
      result.now,
      result.status,
      result.error,
      result.retries.map((retry) => retry.id),
      result.retries.map((retry) => retry.nextAttemptAt),
    ]);
    return affected;
  }

  /** Gives claimed rows back unsent (shutting down before the call went out); due at `now`. */
  async release(ids: string[], claimedBy: string, now: Date): Promise<number> {
    const { affected } = await this.execute(RELEASE, [ids, claimedBy, now]);
    return affected;
  }

  /** When the product's earliest pending delivery is due (or its lease ends); null when none is pending. */
  async nextDue(product: string): Promise<Date | null> {
    const { rows } = await this.execute<{ due: Date | null }>(`select min(next_attempt_at) as due from sync_deliveries where product = $1 and state = 'pending'`, [product]);
    return rows[0]?.due ?? null;
  }

  /** Pending deliveries per product: how many, and the oldest one's event time. */
  async backlog(): Promise<ProductBacklog[]> {
    const { rows } = await this.execute<{ product: string; pending: number; oldest: Date }>(
      `select product, count(*)::int as pending, min(created_at) as oldest
         from sync_deliveries where state = 'pending' group by product order by product`,
      [],
    );
    return rows.map((row) => ({ product: row.product, pending: row.pending, oldestCreatedAt: row.oldest }));
  }

  /**
   * Deletes deliveries delivered before `before`, then dispatched events older than that with no
   * delivery left, `batch` rows per statement so no statement holds many locks for long.
   */
  async prune(before: Date, batch = 5000): Promise<{ deliveries: number; events: number }> {
    let deliveries = 0;
    for (;;) {
      const { affected } = await this.execute(
        `delete from sync_deliveries where id in (
           select id from sync_deliveries where state = 'delivered' and delivered_at < $1 limit $2)`,
        [before, batch],
      );
      deliveries += affected;
      if (affected < batch) break;
    }
    let events = 0;
    for (;;) {
      const { affected } = await this.execute(
        `delete from outbox_events where id in (
           select e.id from outbox_events e
            where e.dispatched_at < $1
              and not exists (select 1 from sync_deliveries d where d.event_id = e.id)
            limit $2)`,
        [before, batch],
      );
      events += affected;
      if (affected < batch) break;
    }
    return { deliveries, events };
  }

  private async execute<R = unknown>(sql: string, parameters: unknown[]): Promise<{ rows: R[]; affected: number }> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(sql, parameters, true);
      return { rows: (result.records ?? []) as R[], affected: result.affected ?? 0 };
    } finally {
      await runner.release();
    }
  }
}
