import { MigrationInterface, QueryRunner } from 'typeorm';

/** The person a key is for (LiteLLM's user_id: a control-plane user of the key's project), whose budget in the project it counts against. */
export class AddVirtualKeyUserId1764600350600 implements MigrationInterface {
  name = 'AddVirtualKeyUserId1764600350600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys add column user_id text');
    await queryRunner.query('create index virtual_keys_user_id on virtual_keys (user_id) where user_id is not null');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop index virtual_keys_user_id');
    await queryRunner.query('alter table virtual_keys drop column user_id');
  }
}
