import { MigrationInterface, QueryRunner } from 'typeorm';

/** A2A agents, per project (issue 38): registered, proxied at /agents/{name} and offered as tools. */
export class CreateAgents1764000000800 implements MigrationInterface {
  name = 'CreateAgents1764000000800';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table agents (
        name text primary key check (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
        url text not null check (url ~ '^https?://'),
        project text not null,
        project_id uuid,
        project_deleted_at timestamptz,
        description text,
        auth_kind text not null check (auth_kind in ('none', 'static')),
        headers_key_id text,
        headers_nonce bytea check (octet_length(headers_nonce) = 12),
        headers_ciphertext bytea,
        headers_auth_tag bytea check (octet_length(headers_auth_tag) = 16),
        card jsonb,
        card_read_at timestamptz,
        source text not null check (source in ('config', 'api')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (num_nulls(headers_key_id, headers_nonce, headers_ciphertext, headers_auth_tag) in (0, 4))
      )`);
    await queryRunner.query('create index agents_project_id on agents (project_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table agents');
  }
}
