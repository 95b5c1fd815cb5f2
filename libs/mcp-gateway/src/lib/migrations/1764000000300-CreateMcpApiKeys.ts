import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateMcpApiKeys1764000000300 implements MigrationInterface {
  name = 'CreateMcpApiKeys1764000000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table mcp_api_keys (
        id uuid primary key default gen_random_uuid(),
        key_hash text not null unique check (key_hash ~ '^[0-9a-f]{64}$'),
        key_hint text not null,
        project text not null check (project ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
        name text not null default '',
        expires_at timestamptz,
        created_at timestamptz not null default now()
      )`);
    await queryRunner.query('create index mcp_api_keys_project on mcp_api_keys (project, created_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table mcp_api_keys');
  }
}
