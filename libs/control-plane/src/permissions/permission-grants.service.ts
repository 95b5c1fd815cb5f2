import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import { DataSource, EntityManager } from 'typeorm';
import { AccessVersion } from '../access/access-version';
import { AuditLog } from '../audit/audit.service';
import { ProductCatalog } from '../products/product-catalog';
import { isUuid } from './effective-permissions.query';
import { GroupedPermissions } from './effective-permissions.service';
import { groupKeys } from './grouped-keys';
import { UserNotFound } from '../users/users.exception';
import { UnknownPermissionKeys, UnknownProjectSlugs } from './permissions.exception';

/** A user's grants as stored, in the grouped shape. */
export type GrantSet = GroupedPermissions;

/** What an administrator asks a user's grants to become. */
export interface GrantChange {
  workspace: string[];
  projects: Record<string, string[]>;
}

/**
 * Administration of grants: reads and replaces a user's whole grant set. Unlike effective
 * permissions, a disabled user's grants are shown as stored (they count again once re-enabled).
 */
@Injectable()
export class PermissionGrants {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accessVersion: AccessVersion,
    private readonly audit: AuditLog,
    private readonly products: ProductCatalog,
  ) {}

  async read(userId: string): Promise<GrantSet> {
    if (!isUuid(userId)) throw new UserNotFound(`with id ${userId}`);
    const grants = await grantsOf(this.dataSource.manager, userId);
    if (!grants) throw new UserNotFound(`with id ${userId}`);
    return grants;
  }

  /**
   * Replaces every grant of the user in one transaction, audited as `permissions.replaced` with
   * the sets before and after. Refuses malformed keys and keys of unknown products or roles
   * (400 unknown_permission_key) and slugs of no project (400 unknown_project).
   */
  async replace(actor: Principal, userId: string, change: GrantChange): Promise<GrantSet> {
    if (!isUuid(userId)) throw new UserNotFound(`with id ${userId}`);
    const unknown = this.products.unknownKeys([...change.workspace, ...Object.values(change.projects).flat()]);
    if (unknown.length > 0) throw new UnknownPermissionKeys(unknown);

    const after = await this.dataSource.transaction(async (manager) => {
      // Serialises concurrent replacements of one user's grants.
      const locked = (await manager.query('select id from users where id = $1 for update', [userId])) as unknown[];
      if (locked.length === 0) throw new UserNotFound(`with id ${userId}`);
      const slugs = Object.keys(change.projects);
      // "for key share": a project cannot be deleted under the grants being written.
      const projects = (await manager.query('select id, slug from projects where slug = any($1::text[]) for key share', [slugs])) as { id: string; slug: string }[];
      const idBySlug = new Map(projects.map((project) => [project.slug, project.id]));
      const missing = slugs.filter((slug) => !idBySlug.has(slug));
      if (missing.length > 0) throw new UnknownProjectSlugs(missing);

      const before = (await grantsOf(manager, userId)) as GrantSet;
      const projectIds: (string | null)[] = [];
      const keys: string[] = [];
      for (const key of new Set(change.workspace)) {
        projectIds.push(null);
        keys.push(key);
      }
      for (const [slug, projectKeys] of Object.entries(change.projects)) {
        for (const key of new Set(projectKeys)) {
          projectIds.push(idBySlug.get(slug) as string);
          keys.push(key);
        }
      }
      await manager.query('delete from permission_grants where user_id = $1', [userId]);
      await manager.query(
        `insert into permission_grants (user_id, project_id, permission_key)
         select $1, grant_row.project_id, grant_row.permission_key from unnest($2::uuid[], $3::text[]) as grant_row (project_id, permission_key)`,
        [userId, projectIds, keys],
      );
      const after = (await grantsOf(manager, userId)) as GrantSet;
      await this.audit.record(manager, actor, 'permissions.replaced', { targetId: userId, details: { before: withoutUserId(before), after: withoutUserId(after) } });
      return after;
    });
    this.accessVersion.bump();
    return after;
  }
}

/** The user's grants in one query; null when there is no such user. */
async function grantsOf(manager: EntityManager, userId: string): Promise<GrantSet | null> {
  const rows = (await manager.query(
    `select u.id, g.permission_key as key, p.slug
     from users u
     left join permission_grants g on g.user_id = u.id
     left join projects p on p.id = g.project_id
     where u.id = $1`,
    [userId],
  )) as { id: string; key: string | null; slug: string | null }[];
  if (rows.length === 0) return null;
  return { user_id: rows[0].id, ...groupKeys(rows) };
}

function withoutUserId({ workspace, projects }: GrantSet): GrantChange {
  return { workspace, projects };
}
