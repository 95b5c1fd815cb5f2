import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spend per UTC day, project and alias: spend_daily summed without keys and deployments, kept by
 * a trigger on spend_daily (writes, and the moves of a rename, apply their difference), so that
 * the dashboard summary reads a few rows per project and day instead of every key's rows.
 */
export class CreateSpendProjectDaily1764000000400 implements MigrationInterface {
  name = 'CreateSpendProjectDaily1764000000400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table spend_project_daily (
        day date not null,
        project text not null,
        alias text not null,
        requests bigint not null default 0,
        cost_usd double precision not null default 0,
        primary key (project, day, alias)
      )`);
    await queryRunner.query('create index spend_project_daily_day on spend_project_daily (day)');
    await queryRunner.query(`
      create function spend_project_daily_apply() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') and old.project is not null then
          update spend_project_daily set requests = requests - old.requests, cost_usd = cost_usd - old.cost_usd
           where project = old.project and day = old.day and alias = old.alias;
        end if;
        if tg_op in ('INSERT', 'UPDATE') and new.project is not null then
          insert into spend_project_daily as p (day, project, alias, requests, cost_usd) values (new.day, new.project, new.alias, new.requests, new.cost_usd)
          on conflict (project, day, alias) do update set requests = p.requests + excluded.requests, cost_usd = p.cost_usd + excluded.cost_usd;
        end if;
        return null;
      end $$`);
    await queryRunner.query('create trigger spend_project_daily_apply after insert or update or delete on spend_daily for each row execute function spend_project_daily_apply()');
    await queryRunner.query(`
      insert into spend_project_daily (day, project, alias, requests, cost_usd)
      select day, project, alias, sum(requests), sum(cost_usd) from spend_daily where project is not null group by day, project, alias`);
    await queryRunner.query('create index calls_hourly_hour on calls_hourly (hour)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop index calls_hourly_hour');
    await queryRunner.query('drop trigger spend_project_daily_apply on spend_daily');
    await queryRunner.query('drop function spend_project_daily_apply()');
    await queryRunner.query('drop table spend_project_daily');
  }
}
