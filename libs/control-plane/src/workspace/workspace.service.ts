import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit.service';
import { Workspace } from './workspace.entity';

export interface WorkspaceChanges {
  name?: string;
  timezone?: string;
  /** null: back to each person's browser language. */
  locale?: string | null;
}

/** The one workspace (row id 1, made by the migration) and its settings. */
@Injectable()
export class WorkspaceService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
  ) {}

  settings(): Promise<Workspace> {
    return this.dataSource.getRepository(Workspace).findOneByOrFail({ id: 1 });
  }

  async update(actor: Principal, changes: WorkspaceChanges): Promise<Workspace> {
    return this.dataSource.transaction(async (manager) => {
      const workspace = await manager.findOneOrFail(Workspace, { where: { id: 1 }, lock: { mode: 'pessimistic_write' } });
      const diff: Record<string, { from: string | null; to: string | null }> = {};
      for (const field of ['name', 'timezone', 'locale'] as const) {
        const value = changes[field];
        if (value !== undefined && value !== workspace[field]) diff[field] = { from: workspace[field], to: value };
      }
      if (Object.keys(diff).length === 0) return workspace;
      await manager.update(
        Workspace,
        { id: 1 },
        { name: changes.name ?? workspace.name, timezone: changes.timezone ?? workspace.timezone, locale: changes.locale === undefined ? workspace.locale : changes.locale },
      );
      await this.audit.record(manager, actor, 'workspace.updated', { details: { changes: diff } });
      return manager.findOneByOrFail(Workspace, { id: 1 });
    });
  }
}
