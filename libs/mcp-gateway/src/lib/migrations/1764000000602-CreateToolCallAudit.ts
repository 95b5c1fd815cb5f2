import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit of tool calls: who called which tool of which server, how it ended and how long it
 * took. Append-only: a trigger refuses updates and deletes (retention is by `truncate` or by
 * dropping the table's old rows with the trigger disabled, an administrator's act).
 */
export class CreateToolCallAudit1764000000602 implements MigrationInterface {
  name = 'CreateToolCallAudit1764000000602';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table mcp_tool_calls (
        id bigint generated always as identity primary key,
        called_at timestamptz not null,
        server_id text,
        projects text[] not null,
        caller_kind text not null check (caller_kind in ('person', 'key')),
        caller_id text not null,
        caller_name text not null,
        upstream text,
        tool text not null,
        outcome text not null check (outcome in ('ok', 'tool_error', 'blocked', 'error', 'rate_limited', 'denied', 'not_found')),
        duration_ms double precision not null,
        error_code integer,
        arguments jsonb,
        result jsonb
      )`);
    await queryRunner.query('create index mcp_tool_calls_server on mcp_tool_calls (server_id, id desc)');
    await queryRunner.query('create index mcp_tool_calls_projects on mcp_tool_calls using gin (projects)');
    await queryRunner.query(`
      create function mcp_tool_calls_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'mcp_tool_calls is append-only: % is not allowed', tg_op;
      end $$`);
    await queryRunner.query('create trigger mcp_tool_calls_append_only before update or delete on mcp_tool_calls for each statement execute function mcp_tool_calls_append_only()');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table mcp_tool_calls');
    await queryRunner.query('drop function mcp_tool_calls_append_only()');
  }
}
