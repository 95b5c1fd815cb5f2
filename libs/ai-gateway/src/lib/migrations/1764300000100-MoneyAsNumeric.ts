import { MigrationInterface, QueryRunner } from 'typeorm';

const MONEY_COLUMNS: [table: string, columns: string[]][] = [
  ['virtual_keys', ['spend', 'budget_spend']],
  ['spend_daily', ['cost_usd', 'estimated_cost_usd']],
  ['spend_project_daily', ['cost_usd']],
  ['owned_resources', ['cost_usd']],
];

/**
 * Money as exact decimals (issue 32): spend summed as double precision carried float noise into
 * answers (0.0012932500000000001). The gateway writes exact decimals (pricing/usd.ts) and the
 * columns add them exactly; PostgreSQL casts each stored double to its 15 significant digits, which
 * drops the noise already summed into it.
 */
export class MoneyAsNumeric1764300000100 implements MigrationInterface {
  name = 'MoneyAsNumeric1764300000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, columns] of MONEY_COLUMNS) {
      await queryRunner.query(`alter table ${table} ${columns.map((column) => `alter column ${column} type numeric using ${column}::numeric`).join(', ')}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, columns] of MONEY_COLUMNS) {
      await queryRunner.query(`alter table ${table} ${columns.map((column) => `alter column ${column} type double precision using ${column}::double precision`).join(', ')}`);
    }
  }
}
