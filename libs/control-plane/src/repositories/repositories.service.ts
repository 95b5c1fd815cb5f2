import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { OutboxWriter } from '@arbor/outbox';
import { DataSource, EntityManager } from 'typeorm';
import { AuditLog } from '../audit/audit.service';
import { ProjectsService } from '../projects/projects.service';
import { RepositoryExists, RepositoryNotFound } from './repositories.exception';
import { Repository } from './repository.entity';
import { isUniqueViolation } from '@arbor/platform';

/** The name PostgreSQL gave the table's inline unique (project_id, source_host, owner, name). */
const REPOSITORY_UNIQUE = 'repositories_project_id_source_host_owner_name_key';

export interface RepositoryFields {
  sourceHost: string;
  owner: string;
  name: string;
  branch: string;
  installationId: string;
}

export interface RepositoryView extends RepositoryFields {
  id: string;
  projectId: string;
  projectSlug: string;
  /** `source_host/owner/name`. */
  fullName: string;
}

interface RepositoryRow {
  id: string;
  project_id: string;
  project_slug: string;
  source_host: string;
  owner: string;
  name: string;
  branch: string;
  installation_id: string;
}

const SELECT_REPOSITORY_VIEW = `
  select r.id, r.project_id, p.slug as project_slug, r.source_host, r.owner, r.name, r.branch, r.installation_id
    from repositories r
    join projects p on p.id = r.project_id`;
const FULL_NAME = `(r.source_host || '/' || r.owner || '/' || r.name) collate "C"`;
// Byte order, so that the answer does not depend on the database's locale.
const ORDER_BY_PROJECT_AND_FULL_NAME = `order by p.slug collate "C", ${FULL_NAME}`;

export interface RepositoryPageRequest {
  limit: number;
  afterId?: string;
}

export interface RepositoryPage {
  repositories: RepositoryView[];
  nextAfterId: string | null;
}

const WIRE_NAMES: Record<keyof RepositoryFields, string> = {
  sourceHost: 'source_host',
  owner: 'owner',
  name: 'name',
  branch: 'branch',
  installationId: 'installation_id',
};
const FIELDS = Object.keys(WIRE_NAMES) as (keyof RepositoryFields)[];
/** What names a repository; branch and installation id are its settings. */
const IDENTITY_FIELDS: readonly (keyof RepositoryFields)[] = ['sourceHost', 'owner', 'name'];

/**
 * A project's source repositories. Every change locks the project row, then writes its audit
 * entry and an outbox row naming the project's slug in the same transaction. Owner and name
 * compare without regard to case, as on GitHub: `Arbor-Demo/Alpha` is `arbor-demo/alpha`.
 */
@Injectable()
export class RepositoriesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLog,
  ) {}

  /** A page of every repository of every project, by project slug then full name. */
  async listAll(page: RepositoryPageRequest): Promise<RepositoryPage> {
    return this.page(page, null);
  }

  /** A page of one project's repositories, by full name. */
  async listForProject(projectId: string, page: RepositoryPageRequest): Promise<RepositoryPage> {
    await this.projects.get(projectId);
    return this.page(page, projectId);
  }

  /**
   * Keyset paging on the list's order, read from the row `afterId` names (so a cursor stays good
   * while repositories are added); a cursor whose repository is gone starts no page: the list ends.
   */
  private async page(page: RepositoryPageRequest, projectId: string | null): Promise<RepositoryPage> {
    const rows = (await this.dataSource.query(
      `${SELECT_REPOSITORY_VIEW}
        where ($1::uuid is null or r.project_id = $1)
          and ($2::uuid is null or (p.slug collate "C", ${FULL_NAME}) > (
            select ap.slug collate "C", (a.source_host || '/' || a.owner || '/' || a.name) collate "C"
              from repositories a join projects ap on ap.id = a.project_id where a.id = $2))
        ${ORDER_BY_PROJECT_AND_FULL_NAME} limit $3`,
      [projectId, page.afterId ?? null, page.limit + 1],
    )) as RepositoryRow[];
    const repositories = rows.slice(0, page.limit).map(fromRow);
    return { repositories, nextAfterId: rows.length > page.limit ? repositories[repositories.length - 1].id : null };
  }

  async add(actor: Principal, projectId: string, fields: RepositoryFields): Promise<RepositoryView> {
    return this.mapDuplicate(() =>
      this.dataSource.transaction(async (manager) => {
        const project = await this.projects.lockForChange(manager, projectId);
        await this.refuseDuplicate(manager, projectId, fields);
        const created = await manager.save(manager.create(Repository, { projectId, ...fields }));
        const view = viewOf(created, project.slug);
        await this.audit.record(manager, actor, 'repository.added', {
          projectId,
          targetId: created.id,
          details: { full_name: view.fullName, branch: view.branch, installation_id: view.installationId },
        });
        await OutboxWriter.projectsChanged(manager, [project.slug]);
        return view;
      }),
    );
  }

  async update(actor: Principal, projectId: string, repositoryId: string, changes: Partial<RepositoryFields>): Promise<RepositoryView> {
    return this.mapDuplicate(() =>
      this.dataSource.transaction(async (manager) => {
        const project = await this.projects.lockForChange(manager, projectId);
        const before = await this.find(manager, projectId, repositoryId);
        const after: RepositoryFields = { ...fieldsOf(before), ...definedOnly(changes) };
        const changed = FIELDS.filter((field) => after[field] !== before[field]);
        if (changed.length === 0) return viewOf(before, project.slug);

        if (changed.some((field) => IDENTITY_FIELDS.includes(field))) await this.refuseDuplicate(manager, projectId, after, repositoryId);
        await manager.update(Repository, { id: repositoryId }, after);
        const view = viewOf({ ...before, ...after }, project.slug);
        await this.audit.record(manager, actor, 'repository.updated', {
          projectId,
          targetId: repositoryId,
          details: {
            full_name: view.fullName,
            changes: Object.fromEntries(changed.map((field) => [WIRE_NAMES[field], { from: before[field], to: after[field] }])),
          },
        });
        await OutboxWriter.projectsChanged(manager, [project.slug]);
        return view;
      }),
    );
  }

  async remove(actor: Principal, projectId: string, repositoryId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const project = await this.projects.lockForChange(manager, projectId);
      const repository = await this.find(manager, projectId, repositoryId);
      await manager.delete(Repository, { id: repositoryId });
      await this.audit.record(manager, actor, 'repository.removed', { projectId, targetId: repositoryId, details: { full_name: fullNameOf(repository) } });
      await OutboxWriter.projectsChanged(manager, [project.slug]);
    });
  }

  private async find(manager: EntityManager, projectId: string, repositoryId: string): Promise<Repository> {
    const repository = await manager.findOneBy(Repository, { id: repositoryId, projectId });
    if (!repository) throw new RepositoryNotFound(repositoryId);
    return repository;
  }

  /** Runs under the project's lock, so two writers cannot both pass it. */
  private async refuseDuplicate(manager: EntityManager, projectId: string, fields: RepositoryFields, exceptId?: string): Promise<void> {
    const rows = (await manager.query(
      `select 1 from repositories
        where project_id = $1 and source_host = $2 and lower(owner) = lower($3) and lower(name) = lower($4)
          and ($5::uuid is null or id <> $5::uuid)
        limit 1`,
      [projectId, fields.sourceHost, fields.owner, fields.name, exceptId ?? null],
    )) as unknown[];
    if (rows.length > 0) throw new RepositoryExists(fullNameOf(fields));
  }

  /** The table's own (case-sensitive) unique constraint, a backstop behind refuseDuplicate. */
  private async mapDuplicate<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } catch (error) {
      if (isUniqueViolation(error, REPOSITORY_UNIQUE)) throw new RepositoryExists();
      throw error;
    }
  }
}

function fullNameOf(fields: Pick<RepositoryFields, 'sourceHost' | 'owner' | 'name'>): string {
  return `${fields.sourceHost}/${fields.owner}/${fields.name}`;
}

function fieldsOf(repository: RepositoryFields): RepositoryFields {
  const { sourceHost, owner, name, branch, installationId } = repository;
  return { sourceHost, owner, name, branch, installationId };
}

function definedOnly(changes: Partial<RepositoryFields>): Partial<RepositoryFields> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<RepositoryFields>;
}

function viewOf(repository: RepositoryFields & { id: string; projectId: string }, projectSlug: string): RepositoryView {
  return { id: repository.id, projectId: repository.projectId, projectSlug, ...fieldsOf(repository), fullName: fullNameOf(repository) };
}

function fromRow(row: RepositoryRow): RepositoryView {
  return viewOf(
    { id: row.id, projectId: row.project_id, sourceHost: row.source_host, owner: row.owner, name: row.name, branch: row.branch, installationId: row.installation_id },
    row.project_slug,
  );
}
