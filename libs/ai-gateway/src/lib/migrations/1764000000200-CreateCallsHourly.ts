import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Calls and failed calls per UTC hour and project, written behind with spend: what the dashboard
 * summary's "last 24 h" figures read (25 small rows per project), never the request logs.
 */
export class CreateCallsHourly1764000000200 implements MigrationInterface {
  name = 'CreateCallsHourly1764000000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table calls_hourly (
        hour timestamptz not null,
        project text not null,
        calls bigint not null default 0,
        errors bigint not null default 0,
        primary key (project, hour)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table calls_hourly');
  }
}
