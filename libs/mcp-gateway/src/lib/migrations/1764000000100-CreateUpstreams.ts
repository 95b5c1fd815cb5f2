import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUpstreams1764000000100 implements MigrationInterface {
  name = 'CreateUpstreams1764000000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table upstreams (
        name text primary key check (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
        url text not null check (url ~ '^https?://'),
        transport text not null check (transport in ('streamable-http', 'sse')),
        headers_key_id text,
        headers_nonce bytea check (octet_length(headers_nonce) = 12),
        headers_ciphertext bytea,
        headers_auth_tag bytea check (octet_length(headers_auth_tag) = 16),
        timeout_ms integer not null check (timeout_ms > 0),
        max_concurrency integer not null check (max_concurrency > 0),
        source text not null check (source in ('config', 'api')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        -- Headers are sealed as a whole: all four parts or none.
        check (num_nulls(headers_key_id, headers_nonce, headers_ciphertext, headers_auth_tag) in (0, 4))
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table upstreams');
  }
}
