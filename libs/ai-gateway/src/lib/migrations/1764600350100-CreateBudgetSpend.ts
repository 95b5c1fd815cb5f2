import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spend of the budget levels above and beside the key (the workspace first), one row per level,
 * subject and period, added to by the write-behind flush; a lifetime budget's period ends at infinity.
 * Tags' spend per UTC day (level `tag:daily`) is kept here too, for /spend/tags.
 */
export class CreateBudgetSpend1764600350100 implements MigrationInterface {
  name = 'CreateBudgetSpend1764600350100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table budget_spend (
        level text not null,
        subject text not null,
        period_end timestamptz not null,
        spend numeric not null default 0,
        calls bigint not null default 0,
        updated_at timestamptz not null default now(),
        primary key (level, subject, period_end)
      )`);
    // This database's own name for its budget counters in Redis, which another gateway (another database) may share.
    await queryRunner.query('create table budget_namespace (id uuid primary key default gen_random_uuid())');
    await queryRunner.query('insert into budget_namespace default values');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table budget_namespace');
    await queryRunner.query('drop table budget_spend');
  }
}
