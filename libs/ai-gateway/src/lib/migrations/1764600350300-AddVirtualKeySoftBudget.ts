import { MigrationInterface, QueryRunner } from 'typeorm';

/** A key's soft_budget (LiteLLM's alert threshold on /key/generate): reaching it raises an alert, refusing nothing. */
export class AddVirtualKeySoftBudget1764600350300 implements MigrationInterface {
  name = 'AddVirtualKeySoftBudget1764600350300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys add column soft_budget double precision');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys drop column soft_budget');
  }
}
