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
    )) as (Omit<AuditEntryResponse, 'occurred_at'> & { occurred_at: Date })[];
    const entries = rows.slice(0, query.limit).map((row) => ({ ...row, occurred_at: row.occurred_at.toISOString() }));
    return { entries, next_before_id: rows.length > query.limit ? entries[entries.length - 1].id : null };
  }
}
