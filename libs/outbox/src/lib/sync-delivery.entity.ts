import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type SyncDeliveryState = 'pending' | 'delivered';

/**
 * What the dispatcher owes one product for one outbox event. Written and claimed through
 * `SyncDeliveryStore`; the entity is for reading (the operators' view).
 */
@Entity({ name: 'sync_deliveries' })
export class SyncDelivery {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  /** Product key, as in `CP_<PRODUCT>_API_URL` (`ai-gateway`). */
  @Column({ type: 'text' })
  product!: string;

  @Column({ name: 'event_id', type: 'bigint' })
  eventId!: string;

  @Column({ type: 'jsonb' })
  slugs!: string[];

  /** The outbox event's trace context, continued by the delivery. */
  @Column({ type: 'text', nullable: true })
  traceparent!: string | null;

  /** The event's time (its transaction's), the start of the commit-to-delivery latency. */
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'text' })
  state!: SyncDeliveryState;

  /** Attempts made so far, the successful one included. */
  @Column({ type: 'integer' })
  attempts!: number;

  /** When it is due; while claimed, the end of the claim's lease. */
  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt!: Date;

  /** The dispatcher claim holding it now (null when not claimed). */
  @Column({ name: 'claimed_by', type: 'text', nullable: true })
  claimedBy!: string | null;

  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil!: Date | null;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt!: Date | null;

  /** HTTP status of the last attempt; null when there was no answer (timeout, refused, DNS). */
  @Column({ name: 'last_status', type: 'integer', nullable: true })
  lastStatus!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;
}
