import { MigrationInterface, QueryRunner } from 'typeorm';

/** Budgets of end users (LiteLLM's customers) and projects (LiteLLM's teams): one row per level and subject. */
export class CreateBudgetLimits1764600350400 implements MigrationInterface {
  name = 'CreateBudgetLimits1764600350400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table budget_limits (
        level text not null,
        subject text not null,
        alias text,
        blocked boolean not null default false,
        max_budget double precision,
        budget_duration text,
        metadata jsonb not null default '{}',
        deleted_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (level, subject)
      )`);
    // Replicas read what changed since their last read.
    await queryRunner.query('create index budget_limits_updated_at on budget_limits (updated_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table budget_limits');
  }
}
