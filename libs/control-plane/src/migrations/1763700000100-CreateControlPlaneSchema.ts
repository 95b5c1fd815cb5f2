import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateControlPlaneSchema1763700000100 implements MigrationInterface {
  name = 'CreateControlPlaneSchema1763700000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table workspace (
        id smallint primary key default 1 check (id = 1),
        name text not null,
        timezone text not null default 'UTC',
        updated_at timestamptz not null default now()
      )`);
    await queryRunner.query(`insert into workspace (id, name, timezone) values (1, 'Arbor', 'UTC')`);

    await queryRunner.query(`
      create table projects (
        id uuid primary key default gen_random_uuid(),
        slug text not null unique check (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
        name text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);

    await queryRunner.query(`
      create table users (
        id uuid primary key default gen_random_uuid(),
        subject text unique,
        email text unique check (email = lower(email)),
        display_name text not null default '',
        disabled boolean not null default false,
        is_admin boolean not null default false,
        theme text not null default 'system' check (theme in ('light', 'dark', 'system')),
        default_project_id uuid references projects (id) on delete set null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (subject is not null or email is not null)
      )`);

    await queryRunner.query(`
      create table repositories (
        id uuid primary key default gen_random_uuid(),
        project_id uuid not null references projects (id) on delete cascade,
        source_host text not null,
        owner text not null,
        name text not null,
        branch text not null,
        installation_id text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (project_id, source_host, owner, name)
      )`);

    await queryRunner.query(`
      create table repository_secrets (
        project_id uuid primary key references projects (id) on delete cascade,
        key_id text not null,
        nonce bytea not null,
        ciphertext bytea not null,
        auth_tag bytea not null,
        updated_at timestamptz not null default now()
      )`);

    await queryRunner.query(`
      create table permission_grants (
        id uuid primary key default gen_random_uuid(),
        user_id uuid not null references users (id) on delete cascade,
        project_id uuid references projects (id) on delete cascade,
        permission_key text not null check (permission_key ~ '^[a-z0-9][a-z0-9-]*(\\.[a-z0-9][a-z0-9-]*)?$'),
        created_at timestamptz not null default now()
      )`);
    await queryRunner.query('create unique index permission_grants_workspace_key on permission_grants (user_id, permission_key) where project_id is null');
    await queryRunner.query('create unique index permission_grants_project_key on permission_grants (user_id, project_id, permission_key) where project_id is not null');
    await queryRunner.query('create index permission_grants_project on permission_grants (project_id)');

    await queryRunner.query(`
      create table audit_log (
        id bigserial primary key,
        occurred_at timestamptz not null default now(),
        actor_kind text not null,
        actor_subject text not null,
        actor_client_id text,
        action text not null,
        project_id uuid,
        target_id text,
        details jsonb not null default '{}'
      )`);
    await queryRunner.query('create index audit_log_project on audit_log (project_id, occurred_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['audit_log', 'permission_grants', 'repository_secrets', 'repositories', 'users', 'projects', 'workspace']) {
      await queryRunner.query(`drop table ${table}`);
    }
  }
}
