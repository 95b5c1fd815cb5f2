import { MigrationInterface, QueryRunner } from 'typeorm';

/** A key's budget per alias (LiteLLM's model_max_budget on /key/generate): `{alias: {max_budget, budget_duration}}`. */
export class AddVirtualKeyModelBudgets1764600350200 implements MigrationInterface {
  name = 'AddVirtualKeyModelBudgets1764600350200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("alter table virtual_keys add column model_max_budget jsonb not null default '{}'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys drop column model_max_budget');
  }
}
