import { MigrationInterface, QueryRunner } from 'typeorm';

/** A key's rate limits per alias (LiteLLM's model_rpm_limit and model_tpm_limit): {} for none. */
export class AddVirtualKeyModelLimits1764600350700 implements MigrationInterface {
  name = 'AddVirtualKeyModelLimits1764600350700';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table virtual_keys add column model_rpm_limit jsonb not null default '{}', add column model_tpm_limit jsonb not null default '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys drop column model_rpm_limit, drop column model_tpm_limit');
  }
}
