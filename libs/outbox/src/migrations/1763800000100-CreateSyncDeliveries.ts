import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per product per outbox event: what the dispatcher still owes each product, its retry
 * schedule and its claim. `next_attempt_at` is also the end of a claim's lease, so one index
 * finds both due retries and the claims of a dispatcher that died.
 */
export class CreateSyncDeliveries1763800000100 implements MigrationInterface {
  name = 'CreateSyncDeliveries1763800000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table sync_deliveries (
        id bigserial primary key,
        product text not null,
        event_id bigint not null references outbox_events (id),
        slugs jsonb not null check (jsonb_typeof(slugs) = 'array'),
        traceparent text,
        created_at timestamptz not null,
        state text not null default 'pending' check (state in ('pending', 'delivered')),
        attempts integer not null default 0 check (attempts >= 0),
        next_attempt_at timestamptz not null,
        claimed_by text,
        claimed_until timestamptz,
        last_attempt_at timestamptz,
        last_status integer,
        last_error text,
        delivered_at timestamptz,
        constraint sync_deliveries_event_product unique (event_id, product),
        check ((state = 'delivered') = (delivered_at is not null))
      )`);
    await queryRunner.query(`create index sync_deliveries_due on sync_deliveries (product, next_attempt_at) where state = 'pending'`);
    await queryRunner.query(`create index sync_deliveries_delivered_at on sync_deliveries (delivered_at) where state = 'delivered'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table sync_deliveries');
  }
}
