import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateVirtualServers1764000000200 implements MigrationInterface {
  name = 'CreateVirtualServers1764000000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table virtual_servers (
        id text primary key check (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
        project text not null check (project ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
        name text not null check (name <> ''),
        description text,
        selections jsonb not null default '[]' check (jsonb_typeof(selections) = 'array'),
        source text not null check (source in ('config', 'api')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    await queryRunner.query('create index virtual_servers_project on virtual_servers (project, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table virtual_servers');
  }
}
