import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-person OAuth to third-party upstreams: the client the gateway registered (or was given) at
 * each upstream's authorisation server, and each person's tokens there; secrets and tokens sealed
 * under MCPGW_SECRETS_KEY, never in plaintext.
 */
export class CreateOAuthConnections1764000000710 implements MigrationInterface {
  name = 'CreateOAuthConnections1764000000710';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`create table oauth_clients (
      upstream text primary key references upstreams (name) on delete cascade,
      issuer text not null,
      client_id text not null,
      secret_key_id text, secret_nonce bytea, secret_ciphertext bytea, secret_auth_tag bytea,
      created_at timestamptz not null default now(),
      constraint oauth_clients_secret_sealed check (num_nulls(secret_key_id, secret_nonce, secret_ciphertext, secret_auth_tag) in (0, 4))
    )`);
    await queryRunner.query(`create table oauth_connections (
      upstream text not null references upstreams (name) on delete cascade,
      subject text not null,
      issuer text not null,
      tokens_key_id text not null, tokens_nonce bytea not null, tokens_ciphertext bytea not null, tokens_auth_tag bytea not null,
      scope text,
      expires_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (upstream, subject)
    )`);
    await queryRunner.query('create index oauth_connections_subject on oauth_connections (subject)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table oauth_connections');
    await queryRunner.query('drop table oauth_clients');
  }
}
