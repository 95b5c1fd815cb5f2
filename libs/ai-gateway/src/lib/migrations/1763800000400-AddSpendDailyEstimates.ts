import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Of each spend_daily row, the calls whose usage the gateway estimated itself (the client hung up
 * mid-stream, so the upstream never reported it) and their cost: reports can tell counted spend
 * from estimated spend.
 */
export class AddSpendDailyEstimates1763800000400 implements MigrationInterface {
  name = 'AddSpendDailyEstimates1763800000400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      alter table spend_daily
        add column estimated_requests bigint not null default 0,
        add column estimated_cost_usd double precision not null default 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table spend_daily drop column estimated_requests, drop column estimated_cost_usd');
  }
}
