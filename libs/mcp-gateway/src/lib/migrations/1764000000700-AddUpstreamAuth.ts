import { MigrationInterface, QueryRunner } from 'typeorm';

/** How the gateway authenticates to each upstream (`static` for the ones there are), and the sealed client secret an `oauth` one may have. */
export class AddUpstreamAuth1764000000700 implements MigrationInterface {
  name = 'AddUpstreamAuth1764000000700';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table upstreams
      add column auth jsonb not null default '{"type": "static"}',
      add column auth_secret_key_id text,
      add column auth_secret_nonce bytea,
      add column auth_secret_ciphertext bytea,
      add column auth_secret_auth_tag bytea,
      add constraint upstreams_auth_type check (auth->>'type' in ('static', 'token_exchange', 'oauth')),
      add constraint upstreams_auth_secret_sealed check (num_nulls(auth_secret_key_id, auth_secret_nonce, auth_secret_ciphertext, auth_secret_auth_tag) in (0, 4))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table upstreams
      drop column auth, drop column auth_secret_key_id, drop column auth_secret_nonce, drop column auth_secret_ciphertext, drop column auth_secret_auth_tag`);
  }
}
