import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spend per UTC day, key, alias and deployment, written by the write-behind batcher. key_id is
 * null for the master key; no foreign key, so that a deleted key's spend stays in its project's report.
 */
export class CreateSpendDaily1763800000300 implements MigrationInterface {
  name = 'CreateSpendDaily1763800000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table spend_daily (
        day date not null,
        key_id uuid,
        project text,
        alias text not null,
        deployment_id text not null,
        provider text not null,
        requests bigint not null default 0,
        prompt_tokens bigint not null default 0,
        completion_tokens bigint not null default 0,
        cost_usd double precision not null default 0,
        constraint spend_daily_row unique nulls not distinct (day, key_id, project, alias, deployment_id)
      )`);
    await queryRunner.query('create index spend_daily_key on spend_daily (key_id, day)');
    await queryRunner.query('create index spend_daily_project on spend_daily (project, day)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table spend_daily');
  }
}
