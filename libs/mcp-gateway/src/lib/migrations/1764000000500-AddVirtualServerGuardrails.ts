import { MigrationInterface, QueryRunner } from 'typeorm';

/** The guardrails a virtual server names for its tool calls (of MCPGW_CONFIG's `guardrails:`); none for the servers there are. */
export class AddVirtualServerGuardrails1764000000500 implements MigrationInterface {
  name = 'AddVirtualServerGuardrails1764000000500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("alter table virtual_servers add column guardrails text[] not null default '{}'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_servers drop column guardrails');
  }
}
