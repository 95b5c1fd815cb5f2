import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `dispatched_at`: when the sync dispatcher turned the event into one delivery per product.
 * A mark per event rather than a cursor over ids, because ids are taken at insert and committed
 * out of order: a cursor moved past id 11 would never see a slower transaction's id 10.
 */
export class AddOutboxDispatchedAt1763800000000 implements MigrationInterface {
  name = 'AddOutboxDispatchedAt1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table outbox_events add column dispatched_at timestamptz');
    // Events written before the dispatcher existed are history no product was configured for.
    await queryRunner.query('update outbox_events set dispatched_at = created_at');
    await queryRunner.query('create index outbox_events_undispatched on outbox_events (id) where dispatched_at is null');
    await queryRunner.query('create index outbox_events_dispatched_at on outbox_events (dispatched_at) where dispatched_at is not null');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop index outbox_events_dispatched_at');
    await queryRunner.query('drop index outbox_events_undispatched');
    await queryRunner.query('alter table outbox_events drop column dispatched_at');
  }
}
