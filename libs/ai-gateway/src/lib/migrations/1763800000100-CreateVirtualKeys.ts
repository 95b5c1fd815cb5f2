import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateVirtualKeys1763800000100 implements MigrationInterface {
  name = 'CreateVirtualKeys1763800000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table virtual_keys (
        id uuid primary key default gen_random_uuid(),
        key_hash text not null unique check (key_hash ~ '^[0-9a-f]{64}$'),
        key_hint text not null,
        project text not null check (project ~ '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$'),
        aliases text[] not null default '{}',
        expires_at timestamptz,
        blocked boolean not null default false,
        metadata jsonb not null default '{}',
        max_budget double precision check (max_budget >= 0),
        budget_duration text,
        rpm_limit integer check (rpm_limit > 0),
        tpm_limit integer check (tpm_limit > 0),
        max_parallel_requests integer check (max_parallel_requests > 0),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    await queryRunner.query('create index virtual_keys_project on virtual_keys (project, created_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table virtual_keys');
  }
}
