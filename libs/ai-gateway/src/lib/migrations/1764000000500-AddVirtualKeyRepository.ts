import { MigrationInterface, QueryRunner } from 'typeorm';

/** A key scoped to one repository of its project (a CI bot's): the control plane's full name of it. */
export class AddVirtualKeyRepository1764000000500 implements MigrationInterface {
  name = 'AddVirtualKeyRepository1764000000500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys add column repository text');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys drop column repository');
  }
}
