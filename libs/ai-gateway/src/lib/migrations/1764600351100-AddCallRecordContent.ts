import { MigrationInterface, QueryRunner } from 'typeorm';

/** A call's messages and answer (general_settings.store_prompts_in_spend_logs): null unless the operator turned content on. */
export class AddCallRecordContent1764600351100 implements MigrationInterface {
  name = 'AddCallRecordContent1764600351100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table call_records add column content jsonb');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table call_records drop column content');
  }
}
