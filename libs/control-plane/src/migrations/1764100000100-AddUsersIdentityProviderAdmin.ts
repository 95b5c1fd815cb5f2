import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether the person held the identity provider's realm role control-plane-admin when they last
 * called the control plane: that role lives in their tokens, so without this the Users page could
 * not say that someone is an administrator through the identity provider (issue 32).
 */
export class AddUsersIdentityProviderAdmin1764100000100 implements MigrationInterface {
  name = 'AddUsersIdentityProviderAdmin1764100000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table users add column idp_admin boolean not null default false');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table users drop column idp_admin');
  }
}
