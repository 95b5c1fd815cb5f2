import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { OutboxWriter } from '@arbor/outbox';
import { DataSource, EntityManager } from 'typeorm';
import { AccessVersion } from '../access/access-version';
import { AuditLog } from '../audit/audit.service';
import { Project } from './project.entity';
import { ProjectNotFound, ProjectSlugTaken } from './projects.exception';
import { isUniqueViolation } from '@arbor/platform';

/** The name PostgreSQL gave the slug's inline unique constraint. */
const SLUG_UNIQUE = 'projects_slug_key';

export interface ProjectView {
  id: string;
  slug: string;
  name: string;
  repositoryCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ProjectChanges {
  slug?: string;
  name?: string;
}

/**
 * `for_no_key_update` serialises changes to a project's repositories and token with each other
 * and with a rename or delete (so the slug an outbox row names is the one that committed),
 * without blocking grant inserts, whose foreign key check only takes a key-share lock.
 */
export type ProjectLock = 'for_no_key_update' | 'pessimistic_write';

interface ProjectRow {
  id: string;
  slug: string;
  name: string;
  repository_count: number;
  created_at: Date;
  updated_at: Date;
}

const SELECT_PROJECT_VIEW = `
  select p.id, p.slug, p.name, p.created_at, p.updated_at,
         (select count(*)::int from repositories r where r.project_id = p.id) as repository_count
    from projects p`;

/**
 * Projects: each change writes its audit entry and its outbox row in its own transaction, and
 * moves the access version after commit when it changes what a slug means (create, rename, delete).
 */
@Injectable()
export class ProjectsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly accessVersion: AccessVersion,
  ) {}

  /** A page of projects by slug: those after `afterSlug`, at most `limit`, and the slug to continue after. */
  async list(page: { limit: number; afterSlug?: string; slug?: string }): Promise<{ projects: ProjectView[]; nextAfterSlug: string | null }> {
    const rows = (await this.dataSource.query(`${SELECT_PROJECT_VIEW} where ($1::text is null or p.slug > $1) and ($3::text is null or p.slug = $3) order by p.slug limit $2`, [
      page.afterSlug ?? null,
      page.limit + 1,
      page.slug ?? null,
    ])) as ProjectRow[];
    const projects = rows.slice(0, page.limit).map(toView);
    return { projects, nextAfterSlug: rows.length > page.limit ? projects[projects.length - 1].slug : null };
  }

  async get(id: string, manager: EntityManager = this.dataSource.manager): Promise<ProjectView> {
    const rows = (await manager.query(`${SELECT_PROJECT_VIEW} where p.id = $1`, [id])) as ProjectRow[];
    if (rows.length === 0) throw new ProjectNotFound(id);
    return toView(rows[0]);
  }

  /** The project row locked for the rest of `manager`'s transaction; 404 when there is none. */
  async lockForChange(manager: EntityManager, id: string, mode: ProjectLock = 'for_no_key_update'): Promise<Project> {
    const project = await manager.findOne(Project, { where: { id }, lock: { mode } });
    if (!project) throw new ProjectNotFound(id);
    return project;
  }

  async create(actor: Principal, input: { slug: string; name: string }): Promise<ProjectView> {
    const project = await this.mapSlugConflict(input.slug, () =>
      this.dataSource.transaction(async (manager) => {
        const created = await manager.save(manager.create(Project, { slug: input.slug, name: input.name }));
        await this.audit.record(manager, actor, 'project.created', { projectId: created.id, targetId: created.id, details: { slug: created.slug, name: created.name } });
        await OutboxWriter.projectsChanged(manager, [created.slug]);
        return created;
      }),
    );
    this.accessVersion.bump();
    return { ...project, repositoryCount: 0 };
  }

  /** A new slug is a rename: the audit says so and the outbox row names both slugs. */
  async update(actor: Principal, id: string, changes: ProjectChanges): Promise<ProjectView> {
    let renamed = false;
    const project = await this.mapSlugConflict(changes.slug ?? '', () =>
      this.dataSource.transaction(async (manager) => {
        const before = await this.lockForChange(manager, id, 'pessimistic_write');
        const set: ProjectChanges = {};
        if (changes.slug !== undefined && changes.slug !== before.slug) set.slug = changes.slug;
        if (changes.name !== undefined && changes.name !== before.name) set.name = changes.name;
        if (Object.keys(set).length === 0) return this.get(id, manager);

        await manager.update(Project, { id }, set);
        renamed = set.slug !== undefined;
        const details: Record<string, unknown> = { slug: set.slug ?? before.slug };
        if (renamed) details['previous_slug'] = before.slug;
        if (set.name !== undefined) Object.assign(details, { name: set.name, previous_name: before.name });
        await this.audit.record(manager, actor, renamed ? 'project.renamed' : 'project.updated', { projectId: id, targetId: id, details });
        await OutboxWriter.projectsChanged(manager, [before.slug, set.slug ?? before.slug]);
        return this.get(id, manager);
      }),
    );
    if (renamed) this.accessVersion.bump();
    return project;
  }

  /** The database cascades the project's repositories, token and grants. */
  async remove(actor: Principal, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const project = await this.lockForChange(manager, id, 'pessimistic_write');
      await manager.delete(Project, { id });
      await this.audit.record(manager, actor, 'project.deleted', { projectId: id, targetId: id, details: { slug: project.slug, name: project.name } });
      await OutboxWriter.projectsChanged(manager, [project.slug]);
    });
    this.accessVersion.bump();
  }

  /** Two concurrent writers of one slug: the unique index lets one commit, the other gets 409. */
  private async mapSlugConflict<T>(slug: string, change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } catch (error) {
      if (isUniqueViolation(error, SLUG_UNIQUE)) throw new ProjectSlugTaken(slug);
      throw error;
    }
  }
}

function toView(row: ProjectRow): ProjectView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    repositoryCount: row.repository_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
