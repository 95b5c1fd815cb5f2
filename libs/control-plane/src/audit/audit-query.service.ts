import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditEntryResponse, AuditListResponse } from './dto/audit-entry.response';
import { ListAuditQuery } from './dto/list-audit.query';

/** Reads the audit log for administrators: newest first, filtered, paged by id (stable while entries are added). */
@Injectable()
export class AuditQuery {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(query: ListAuditQuery): Promise<AuditListResponse> {
    const where: string[] = [];
    const parameters: unknown[] = [];
    const add = (condition: (placeholder: string) => string, value: unknown) => {
      parameters.push(value);
      where.push(condition(`$${parameters.length}`));
    };
    if (query.action?.endsWith('.')) add((p) => `starts_with(a.action, ${p})`, query.action);
    else if (query.action) add((p) => `a.action = ${p}`, query.action);
    if (query.actor_subject) add((p) => `a.actor_subject = ${p}`, query.actor_subject);
    if (query.project_id) add((p) => `a.project_id = ${p}`, query.project_id);
    if (query.target_id) add((p) => `a.target_id = ${p}`, query.target_id);
    if (query.before_id) add((p) => `a.id < ${p}::bigint`, query.before_id);
    parameters.push(query.limit + 1);
    const rows = (await this.dataSource.query(
      `select a.id::text as id, a.occurred_at, a.actor_kind, a.actor_subject, u.display_name as actor_name, a.actor_client_id,
              a.action, a.project_id, a.target_id, a.details
         from audit_log a left join users u on u.subject = a.actor_subject and a.actor_kind = 'person'
        ${where.length ? `where ${where.join(' and ')}` : ''}
        order by a.id desc limit $${parameters.length}`,
      parameters,
    )) as (Omit<AuditEntryResponse, 'occurred_at' | 'target_name'> & { occurred_at: Date })[];
    const page = rows.slice(0, query.limit);
    const names = await this.userNames(page.map((row) => row.target_id));
    const entries = page.map((row) => ({ ...row, occurred_at: row.occurred_at.toISOString(), target_name: (row.target_id && names.get(row.target_id)) ?? null }));
    return { entries, next_before_id: rows.length > query.limit ? entries[entries.length - 1].id : null };
  }

  /** The people among a page's targets (ids of users), by name or else email: one indexed query per page. */
  private async userNames(targetIds: (string | null)[]): Promise<Map<string, string>> {
    const ids = [...new Set(targetIds.filter((id): id is string => id !== null && UUID.test(id)))];
    if (ids.length === 0) return new Map();
    const rows = (await this.dataSource.query(`select id::text as id, coalesce(nullif(display_name, ''), email) as name from users where id = any($1::uuid[])`, [ids])) as {
      id: string;
      name: string | null;
    }[];
    return new Map(rows.filter((row) => row.name !== null).map((row) => [row.id, row.name as string]));
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
