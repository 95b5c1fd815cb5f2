import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Of each spend_daily row, the calls answered from the response cache (LiteLLM's cache hits):
 * counted in requests, with no tokens and no cost, so that reports tell hits from upstream calls.
 */
export class AddSpendDailyCacheHits1764100000100 implements MigrationInterface {
  name = 'AddSpendDailyCacheHits1764100000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table spend_daily add column cache_hit_requests bigint not null default 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('alter table spend_daily drop column cache_hit_requests');
  }
}
