import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOutboxEvents1763700000000 implements MigrationInterface {
  name = 'CreateOutboxEvents1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table outbox_events (
        id bigserial primary key,
        topic text not null,
        payload jsonb not null,
        traceparent text,
        created_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table outbox_events');
  }
}
