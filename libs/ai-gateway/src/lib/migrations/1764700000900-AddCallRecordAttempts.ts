import { MigrationInterface, QueryRunner } from 'typeorm';

/** How many retries and fallbacks each recorded call took before its answer (the x-arbor-attempted-* headers), for the call log. */
export class AddCallRecordAttempts1764700000900 implements MigrationInterface {
  name = 'AddCallRecordAttempts1764700000900';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table call_records add column retries integer not null default 0, add column fallbacks integer not null default 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table call_records drop column retries, drop column fallbacks');
  }
}
