import { MigrationInterface, QueryRunner } from 'typeorm';

/** LiteLLM's key_alias: a name a key is found by (its key API deletes and lists by it), unique when given. */
export class AddVirtualKeyAlias1764100000200 implements MigrationInterface {
  name = 'AddVirtualKeyAlias1764100000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys add column key_alias text');
    await queryRunner.query('create unique index virtual_keys_key_alias on virtual_keys (key_alias) where key_alias is not null');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop index virtual_keys_key_alias');
    await queryRunner.query('alter table virtual_keys drop column key_alias');
  }
}
