import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One change that products must hear about, written in the transaction that made the change.
 * The dispatcher turns each row into one delivery per product (`SyncDelivery`) and marks it dispatched.
 */
@Entity({ name: 'outbox_events' })
export class OutboxEvent {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  /** What happened, e.g. `projects.changed`. */
  @Column({ type: 'text' })
  topic!: string;

  /** The body products receive; for project sync `{ "slugs": [...] }`. */
  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  /** W3C trace context of the request that made the change, so delivery continues its trace. */
  @Column({ type: 'text', nullable: true })
  traceparent!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** When the dispatcher made this event's deliveries; null until then. */
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt!: Date | null;
}
