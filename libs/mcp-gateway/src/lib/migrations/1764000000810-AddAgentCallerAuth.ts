import { MigrationInterface, QueryRunner } from 'typeorm';

/** Agents take the credentials module's per-caller auth too (token_exchange, oauth): its settings, and an oauth client secret sealed. */
export class AddAgentCallerAuth1764000000810 implements MigrationInterface {
  name = 'AddAgentCallerAuth1764000000810';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table agents
      drop constraint agents_auth_kind_check,
      add constraint agents_auth_kind_check check (auth_kind in ('none', 'static', 'token_exchange', 'oauth')),
      add column auth_settings jsonb not null default '{}',
      add column auth_secret_key_id text,
      add column auth_secret_nonce bytea check (octet_length(auth_secret_nonce) = 12),
      add column auth_secret_ciphertext bytea,
      add column auth_secret_auth_tag bytea check (octet_length(auth_secret_auth_tag) = 16),
      add constraint agents_token_exchange_audience check (auth_kind <> 'token_exchange' or auth_settings ? 'audience'),
      add constraint agents_auth_secret_sealed check (num_nulls(auth_secret_key_id, auth_secret_nonce, auth_secret_ciphertext, auth_secret_auth_tag) in (0, 4))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`delete from agents where auth_kind in ('token_exchange', 'oauth')`);
    await queryRunner.query(`alter table agents
      drop constraint agents_token_exchange_audience,
      drop constraint agents_auth_secret_sealed,
      drop column auth_settings, drop column auth_secret_key_id, drop column auth_secret_nonce, drop column auth_secret_ciphertext, drop column auth_secret_auth_tag,
      drop constraint agents_auth_kind_check,
      add constraint agents_auth_kind_check check (auth_kind in ('none', 'static'))`);
  }
}
