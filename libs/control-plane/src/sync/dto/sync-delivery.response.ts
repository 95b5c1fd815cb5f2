import { ApiProperty } from '@nestjs/swagger';
import type { SyncDelivery } from '@arbor/outbox';
import type { ProductBacklogSummary } from '../sync-deliveries.service';
import { DELIVERY_VIEWS, DeliveryView } from './list-sync-deliveries.query';

function secondsSince(then: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - then.getTime()) / 1000));
}

/** A delivery the dispatcher still owes a product, as operators see it. */
export class SyncDeliveryResponse {
  @ApiProperty({ example: '1042', description: 'Delivery id (a 64-bit integer, as a string).' })
  id!: string;

  @ApiProperty({ example: 'ai-gateway', description: 'Product key, as in CP_<PRODUCT>_API_URL.' })
  product!: string;

  @ApiProperty({ example: '977', description: 'The outbox event this delivery carries.' })
  event_id!: string;

  @ApiProperty({ type: [String], example: ['payments'], description: 'The slugs the product will receive.' })
  slugs!: string[];

  @ApiProperty({ enum: ['pending', 'delivered'] })
  state!: 'pending' | 'delivered';

  @ApiProperty({ example: 3, description: 'Attempts made so far.' })
  attempts!: number;

  @ApiProperty({ type: String, format: 'date-time', description: 'When the dispatcher tries next (while an attempt is under way, the end of its lease).' })
  next_attempt_at!: string;

  @ApiProperty({ description: 'A dispatcher holds it right now (an attempt is under way).' })
  in_flight!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_attempt_at!: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 503, description: 'HTTP status of the last attempt; null when there was no answer (timeout, refused, DNS).' })
  last_status!: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'connect ECONNREFUSED 10.0.0.7:4000' })
  last_error!: string | null;

  @ApiProperty({ type: String, format: 'date-time', description: 'When the change was committed.' })
  created_at!: string;

  @ApiProperty({ example: 42, description: 'Whole seconds since the change was committed.' })
  age_seconds!: number;

  static of(delivery: SyncDelivery, now: Date): SyncDeliveryResponse {
    return {
      id: delivery.id,
      product: delivery.product,
      event_id: delivery.eventId,
      slugs: delivery.slugs,
      state: delivery.state,
      attempts: delivery.attempts,
      next_attempt_at: delivery.nextAttemptAt.toISOString(),
      in_flight: delivery.claimedUntil !== null && delivery.claimedUntil > now,
      last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
      last_status: delivery.lastStatus,
      last_error: delivery.lastError,
      created_at: delivery.createdAt.toISOString(),
      age_seconds: secondsSince(delivery.createdAt, now),
    };
  }
}

/** Pending deliveries to one product. */
export class SyncProductSummary {
  @ApiProperty({ example: 'ai-gateway' })
  product!: string;

  @ApiProperty({ example: 12, description: 'Deliveries not yet answered with 2xx.' })
  pending!: number;

  @ApiProperty({ example: 2, description: 'Pending deliveries tried at least once.' })
  failing!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Commit time of the oldest pending delivery.' })
  oldest_pending_at!: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 42, description: 'Whole seconds since then.' })
  oldest_pending_age_seconds!: number | null;

  static of(summary: ProductBacklogSummary, now: Date): SyncProductSummary {
    return {
      product: summary.product,
      pending: summary.pending,
      failing: summary.failing,
      oldest_pending_at: summary.oldestPendingAt?.toISOString() ?? null,
      oldest_pending_age_seconds: summary.oldestPendingAt ? secondsSince(summary.oldestPendingAt, now) : null,
    };
  }
}

export class SyncDeliveryListResponse {
  @ApiProperty({ enum: DELIVERY_VIEWS })
  state!: DeliveryView;

  @ApiProperty({ type: [SyncDeliveryResponse], description: 'Oldest first.' })
  deliveries!: SyncDeliveryResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as after_id for the next page; null on the last page.' })
  next_after_id!: string | null;

  @ApiProperty({
    type: [SyncProductSummary],
    description: 'Every configured sync target and every product with pending deliveries, whatever the filters, by product key.',
  })
  summary!: SyncProductSummary[];
}
