import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The control plane's project id beside the slug of virtual servers and API keys, so that a
 * rename moves them to the new slug and a deletion hides the servers from every listing and stops
 * the keys (project_deleted_at). Null: not yet matched; the next sync of the slug adopts the row.
 */
export class AddControlPlaneProjectIds1764000000400 implements MigrationInterface {
  name = 'AddControlPlaneProjectIds1764000000400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_servers add column project_id uuid, add column project_deleted_at timestamptz');
    await queryRunner.query('alter table mcp_api_keys add column project_id uuid, add column project_deleted_at timestamptz');
    await queryRunner.query('create index virtual_servers_project_id on virtual_servers (project_id)');
    await queryRunner.query('create index mcp_api_keys_project_id on mcp_api_keys (project_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table mcp_api_keys drop column project_id, drop column project_deleted_at');
    await queryRunner.query('alter table virtual_servers drop column project_id, drop column project_deleted_at');
  }
}
