import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a virtual server asks of its callers beyond a role on its project: the role each tool,
 * resource and prompt needs, per-tool rate limits, and whether the audit keeps call payloads.
 * Existing servers name none, as before.
 */
export class AddVirtualServerAccessRules1764000000600 implements MigrationInterface {
  name = 'AddVirtualServerAccessRules1764000000600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table virtual_servers
      add column tool_roles jsonb not null default '{}',
      add column resource_roles jsonb not null default '{}',
      add column prompt_roles jsonb not null default '{}',
      add column tool_rate_limits jsonb not null default '{}',
      add column audit_payloads boolean not null default false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table virtual_servers
      drop column tool_roles, drop column resource_roles, drop column prompt_roles, drop column tool_rate_limits, drop column audit_payloads`);
  }
}
