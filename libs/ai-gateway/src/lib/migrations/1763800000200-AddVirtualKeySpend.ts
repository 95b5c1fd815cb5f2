import { MigrationInterface, QueryRunner } from 'typeorm';

/** What budget enforcement persists per key: lifetime spend and the spend of the current budget period. */
export class AddVirtualKeySpend1763800000200 implements MigrationInterface {
  name = 'AddVirtualKeySpend1763800000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      alter table virtual_keys
        add column spend double precision not null default 0,
        add column budget_spend double precision not null default 0,
        add column budget_reset_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table virtual_keys drop column spend, drop column budget_spend, drop column budget_reset_at');
  }
}
