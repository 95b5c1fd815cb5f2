import { MigrationInterface, QueryRunner } from 'typeorm';

/** A project's own rate limits and models (LiteLLM's team rpm_limit, tpm_limit, models): counted over all its keys. */
export class AddProjectRatesAndModels1764600351000 implements MigrationInterface {
  name = 'AddProjectRatesAndModels1764600351000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table budget_limits add column rpm_limit integer, add column tpm_limit integer, add column models text[] not null default '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table budget_limits drop column rpm_limit, drop column tpm_limit, drop column models');
  }
}
