import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { OutboxWriter } from '@arbor/outbox';
import { DataSource, EntityManager } from 'typeorm';
import { AuditLog } from '../audit/audit.service';
import { ProjectNotFound } from '../projects/projects.exception';
import { ProjectsService } from '../projects/projects.service';
import { MasterKeyMissing, RepositorySecretNotFound, RepositorySecretUnreadable } from './repository-secret.exception';
import { SealedSecret, SecretSealer, UnknownSealingKey } from '@arbor/contract';

export interface RepositorySecretValue {
  projectId: string;
  projectSlug: string;
  value: string;
  updatedAt: Date;
}

export interface RepositorySecretState {
  configured: boolean;
  keyId: string | null;
  updatedAt: Date | null;
}

interface ProjectSecretRow {
  slug: string;
  key_id: string | null;
  nonce: Buffer | null;
  ciphertext: Buffer | null;
  auth_tag: Buffer | null;
  updated_at: Date | null;
}

/**
 * A project's repository token. The plaintext exists only in this process: it is sealed before
 * any query and opened after one, never logged, never audited. Every read is audited in the
 * transaction that reads it; a read whose audit entry cannot be written returns nothing.
 */
@Injectable()
export class RepositorySecretService {
  private readonly logger = new Logger('repository-secret');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly projects: ProjectsService,
    private readonly cipher: SecretSealer,
    private readonly audit: AuditLog,
  ) {}

  /** Sets or replaces the token, under the current master key with a fresh nonce. */
  async replace(actor: Principal, projectId: string, value: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const project = await this.projects.lockForChange(manager, projectId);
      const sealed = this.cipher.seal(value, projectId);
      const rows = (await manager.query(
        `insert into repository_secrets as s (project_id, key_id, nonce, ciphertext, auth_tag)
         values ($1, $2, $3, $4, $5)
         on conflict (project_id) do update
            set key_id = excluded.key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext,
                auth_tag = excluded.auth_tag, updated_at = now()
         returning (xmax <> 0) as replaced`,
        [projectId, sealed.keyId, sealed.nonce, sealed.ciphertext, sealed.authTag],
      )) as { replaced: boolean }[];
      await this.audit.record(manager, actor, 'repository_secret.replaced', {
        projectId,
        targetId: projectId,
        details: { project_slug: project.slug, key_id: sealed.keyId, previously_configured: rows[0].replaced },
      });
      await OutboxWriter.projectsChanged(manager, [project.slug]);
    });
  }

  async remove(actor: Principal, projectId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const project = await this.projects.lockForChange(manager, projectId);
      const deleted = (await manager.query('delete from repository_secrets where project_id = $1 returning key_id', [projectId])) as [unknown[], number];
      if (deleted[1] === 0) throw new RepositorySecretNotFound(projectId);
      await this.audit.record(manager, actor, 'repository_secret.removed', { projectId, targetId: projectId, details: { project_slug: project.slug } });
      await OutboxWriter.projectsChanged(manager, [project.slug]);
    });
  }

  async state(projectId: string): Promise<RepositorySecretState> {
    const row = await this.projectWithSecret(projectId);
    return { configured: row.key_id !== null, keyId: row.key_id, updatedAt: row.updated_at };
  }

  /** The decrypted token; the read is audited (who, when, which project) before it is answered. */
  async read(actor: Principal, projectId: string): Promise<RepositorySecretValue> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.projectWithSecret(projectId, manager);
      if (row.key_id === null || row.nonce === null || row.ciphertext === null || row.auth_tag === null || row.updated_at === null) {
        throw new RepositorySecretNotFound(projectId);
      }
      const value = this.open({ keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext, authTag: row.auth_tag }, projectId);
      await this.audit.record(manager, actor, 'repository_secret.read', { projectId, targetId: projectId, details: { project_slug: row.slug } });
      return { projectId, projectSlug: row.slug, value, updatedAt: row.updated_at };
    });
  }

  private open(sealed: SealedSecret, projectId: string): string {
    try {
      return this.cipher.open(sealed, projectId);
    } catch (error) {
      if (error instanceof UnknownSealingKey) {
        this.logger.error(`the repository token of project ${projectId} is under master key ${sealed.keyId}, which is not configured; see docs/operations.md`);
        throw new MasterKeyMissing(sealed.keyId);
      }
      this.logger.error(`the repository token of project ${projectId} does not decrypt under master key ${sealed.keyId}`);
      throw new RepositorySecretUnreadable(sealed.keyId);
    }
  }

  private async projectWithSecret(projectId: string, manager: EntityManager = this.dataSource.manager): Promise<ProjectSecretRow> {
    const rows = (await manager.query(
      `select p.slug, s.key_id, s.nonce, s.ciphertext, s.auth_tag, s.updated_at
         from projects p
         left join repository_secrets s on s.project_id = p.id
        where p.id = $1`,
      [projectId],
    )) as ProjectSecretRow[];
    if (rows.length === 0) throw new ProjectNotFound(projectId);
    return rows[0];
  }
}
