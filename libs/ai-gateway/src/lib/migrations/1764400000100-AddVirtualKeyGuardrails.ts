import { MigrationInterface, QueryRunner } from 'typeorm';

/** Guardrails a key carries (LiteLLM's `guardrails` on /key/generate): they run on every call the key makes. */
export class AddVirtualKeyGuardrails1764400000100 implements MigrationInterface {
  name = 'AddVirtualKeyGuardrails1764400000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("alter table virtual_keys add column guardrails text[] not null default '{}'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys drop column guardrails');
  }
}
