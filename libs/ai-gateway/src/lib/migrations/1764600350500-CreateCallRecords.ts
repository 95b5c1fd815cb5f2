import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per call, appended by the write-behind flush (never updated): who called (key, project,
 * end user, tags), what answered (alias, deployment), tokens, cost, status and latency — metadata
 * only, never a prompt or an answer. LiteLLM's single-call /spend/logs reads it; rows older than
 * the retention are pruned in batches.
 */
export class CreateCallRecords1764600350500 implements MigrationInterface {
  name = 'CreateCallRecords1764600350500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table call_records (
        id uuid primary key default gen_random_uuid(),
        started_at timestamptz not null,
        key_id uuid,
        project text,
        end_user text,
        tags text[] not null default '{}',
        alias text not null,
        deployment_id text,
        provider text,
        prompt_tokens bigint not null default 0,
        completion_tokens bigint not null default 0,
        cost_usd numeric not null default 0,
        status integer not null,
        latency_ms double precision not null,
        cache_hit boolean not null default false
      )`);
    await queryRunner.query('create index call_records_started_at on call_records (started_at desc)');
    await queryRunner.query('create index call_records_key on call_records (key_id, started_at desc)');
    await queryRunner.query('create index call_records_project on call_records (project, started_at desc)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table call_records');
  }
}
