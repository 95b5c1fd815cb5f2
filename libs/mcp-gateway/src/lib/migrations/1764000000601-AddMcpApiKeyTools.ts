import { MigrationInterface, QueryRunner } from 'typeorm';

/** An API key may be scoped to named tools; the keys there are reach every tool, as before. */
export class AddMcpApiKeyTools1764000000601 implements MigrationInterface {
  name = 'AddMcpApiKeyTools1764000000601';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table mcp_api_keys add column tools text[]');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table mcp_api_keys drop column tools');
  }
}
