import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a call log shows of how a call went beyond its status: the error code of a failed or refused
 * call (guardrail_violation, budget_exceeded, rate_limit_exceeded, …) and the retries and
 * fallbacks it took.
 */
export class AddCallRecordOutcomes1764600350800 implements MigrationInterface {
  name = 'AddCallRecordOutcomes1764600350800';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table call_records add column error_code text, add column retries integer not null default 0, add column fallbacks integer not null default 0');
    await queryRunner.query('create index call_records_error_code on call_records (error_code, started_at desc) where error_code is not null');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop index call_records_error_code');
    await queryRunner.query('alter table call_records drop column error_code, drop column retries, drop column fallbacks');
  }
}
