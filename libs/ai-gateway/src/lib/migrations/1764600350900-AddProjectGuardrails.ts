import { MigrationInterface, QueryRunner } from 'typeorm';

/** Guardrails a project carries (LiteLLM's team `guardrails`): they run on every call of its keys. */
export class AddProjectGuardrails1764600350900 implements MigrationInterface {
  name = 'AddProjectGuardrails1764600350900';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table budget_limits add column guardrails text[] not null default '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table budget_limits drop column guardrails');
  }
}
