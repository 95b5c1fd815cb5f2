import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The control plane's project id beside the slug of everything kept per project, so that a rename
 * (the sync names both slugs) moves keys and spend to the new slug, and a deleted project's keys
 * stop (project_deleted_at) while its spend stays reportable. Null: not yet matched with the
 * control plane (made before it was configured); the next sync of the slug adopts it.
 */
export class AddControlPlaneProjectIds1764000000300 implements MigrationInterface {
  name = 'AddControlPlaneProjectIds1764000000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys add column project_id uuid, add column project_deleted_at timestamptz');
    await queryRunner.query('alter table spend_daily add column project_id uuid');
    await queryRunner.query('alter table calls_hourly add column project_id uuid');
    await queryRunner.query('create index virtual_keys_project_id on virtual_keys (project_id)');
    await queryRunner.query('create index spend_daily_project_id on spend_daily (project_id)');
    await queryRunner.query('create index calls_hourly_project_id on calls_hourly (project_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table calls_hourly drop column project_id');
    await queryRunner.query('alter table spend_daily drop column project_id');
    await queryRunner.query('alter table virtual_keys drop column project_id, drop column project_deleted_at');
  }
}
