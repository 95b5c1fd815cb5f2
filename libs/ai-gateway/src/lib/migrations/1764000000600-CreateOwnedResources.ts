import { MigrationInterface, QueryRunner } from 'typeorm';

/** Files, batches, vector stores, assistants and threads owned by projects, read by id, listed per project and kind, polled while batches run. */
export class CreateOwnedResources1764000000600 implements MigrationInterface {
  name = 'CreateOwnedResources1764000000600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table owned_resources (
        id text primary key,
        kind text not null,
        project text,
        key_id uuid,
        alias text not null,
        deployment_id text not null,
        upstream_id text not null,
        created_at timestamptz not null,
        object jsonb not null,
        settled_at timestamptz,
        cost_usd float8,
        next_poll_at timestamptz
      )`);
    await queryRunner.query('create index owned_resources_listing on owned_resources (kind, project, created_at, id)');
    await queryRunner.query('create unique index owned_resources_upstream on owned_resources (deployment_id, upstream_id, kind)');
    await queryRunner.query('create index owned_resources_polling on owned_resources (next_poll_at) where next_poll_at is not null');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table owned_resources');
  }
}
