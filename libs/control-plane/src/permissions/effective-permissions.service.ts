import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Principal } from '@arbor/auth';
import type { GroupedPermissionsView, SinglePermissionsView } from '@arbor/contract';
import { LRUCache } from 'lru-cache';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { AccessVersion } from '../access/access-version';
import { UserDirectory } from '../users/user-directory.service';
import { strongEntityTag } from './entity-tag';
import { groupKeys, sortedUnique } from './grouped-keys';
import { EffectivePermissionsQuery, isUuid, ProjectReference, UserReference } from './effective-permissions.query';
import { ProjectNotFound } from '../projects/projects.exception';
import { UserNotFound } from '../users/users.exception';
import { OthersPermissionsForbidden } from './permissions.exception';

/** The wire views are the contract's: what the control plane answers is what products read. */
export type SinglePermissions = SinglePermissionsView;
export type GroupedPermissions = GroupedPermissionsView;

/** One computed answer with its serialized body and entity tag, kept until the access version moves. */
export interface EffectivePermissionsAnswer {
  readonly userId: string;
  /** The user's OIDC subject (null for a pre-created user who has not signed in): who may read it. */
  readonly subject: string | null;
  readonly view: Readonly<SinglePermissions | GroupedPermissions>;
  readonly body: string;
  readonly etag: string;
}

type Outcome = { found: 'answer'; answer: EffectivePermissionsAnswer } | { found: 'no_user' } | { found: 'no_project'; subject: string | null };

interface Row {
  id: string;
  subject: string | null;
  key: string | null;
  /** Grouped view: the slug of the grant's project, null for a workspace grant. */
  slug?: string | null;
  /** Single view with a project: the project's id, null when it does not exist. */
  project_id?: string | null;
}

/**
 * The statements, one per view and kind of reference, each answering in one round trip (users,
 * grants and projects joined). A disabled user still answers a row (so it is not "not found") but
 * joins no grant. With a project, the row carries the project's id, null when it does not exist.
 * Workspace and project grants are read in separate branches so that each uses its own partial
 * index (permission_grants_workspace_key, permission_grants_project_key): an `or` of the two
 * would read every workspace grant of every user.
 */
function statements(userClause: string) {
  const withProject = (projectClause: string) => `select u.id, u.subject, p.id as project_id, g.key
      from users u
      left join projects p on ${projectClause}
      left join lateral (
        select permission_key as key from permission_grants where user_id = u.id and project_id is null
        union all
        select permission_key from permission_grants where user_id = u.id and project_id = p.id
      ) g on not u.disabled
      where ${userClause}`;
  return {
    grouped: `select u.id, u.subject, g.key, g.slug
      from users u
      left join lateral (
        select permission_key as key, null::text as slug from permission_grants where user_id = u.id and project_id is null
        union all
        select grant_row.permission_key, project.slug
          from permission_grants grant_row join projects project on project.id = grant_row.project_id
          where grant_row.user_id = u.id and grant_row.project_id is not null
      ) g on not u.disabled
      where ${userClause}`,
    workspace: `select u.id, u.subject, g.key
      from users u
      left join lateral (select permission_key as key from permission_grants where user_id = u.id and project_id is null) g on not u.disabled
      where ${userClause}`,
    projectById: withProject('p.id = $2::uuid'),
    projectBySlug: withProject('p.slug = $2'),
  };
}
const BY_ID = statements('u.id = $1::uuid');
const BY_SUBJECT = statements('u.subject = $1');
type Statement = keyof typeof BY_ID;

/** Bounds the cache by an estimate of its memory rather than by a count of answers. */
const CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The effective permission keys of a user: workspace grants, and per project the grants on it.
 * Each answer costs one database query and is then cached in process, keyed on AccessVersion:
 * any change of grants, users or projects bumps it and so invalidates every cached answer, which
 * keeps answers and their ETags exact without tracking what each change touches.
 *
 * Keys are answered raw: a role key is listed even without its product's sign-in key. Whether a
 * role counts is the consumer's decision (see ProductCatalog.access: only with the sign-in key).
 */
@Injectable()
export class EffectivePermissionsService {
  private readonly cache = new LRUCache<string, { version: number; answer: EffectivePermissionsAnswer }>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (entry, key) => 256 + key.length + entry.answer.body.length * 3,
  });
  /** Concurrent asks for one answer share one query (e.g. every product re-asking after a change). */
  private readonly loading = new Map<string, { version: number; outcome: Promise<Outcome> }>();

  /** TypeORM's pg pool, for named statements (see rows()). */
  private readonly pool: Pool;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly accessVersion: AccessVersion,
    private readonly users: UserDirectory,
  ) {
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
  }

  /** Workspace keys, plus the project's keys when a project is given; sorted, without repeats. */
  async single(userId: string, project?: ProjectReference): Promise<SinglePermissions> {
    const view = (await this.answer({ user: { id: userId }, project, grouped: false })).view as SinglePermissions;
    return { user_id: view.user_id, permissions: [...view.permissions] };
  }

  /** Workspace keys and, by slug, the keys of every project the user holds any key on. */
  async grouped(userId: string): Promise<GroupedPermissions> {
    const view = (await this.answer({ user: { id: userId }, grouped: true })).view as GroupedPermissions;
    return {
      user_id: view.user_id,
      workspace: [...view.workspace],
      projects: Object.fromEntries(Object.entries(view.projects).map(([slug, keys]) => [slug, [...keys]])),
    };
  }

  /** The answer for an id or subject; 404 as UserNotFound or ProjectNotFound. */
  async answer(query: EffectivePermissionsQuery): Promise<EffectivePermissionsAnswer> {
    const outcome = await this.outcome(query);
    if (outcome.found === 'no_user') throw new UserNotFound(describeUser(query.user));
    if (outcome.found === 'no_project') throw new ProjectNotFound(describeProject(query.project ?? {}));
    return outcome.answer;
  }

  /**
   * The answer `caller` may read: a person only their own (403 for anyone else's, existing or
   * not), a machine or an administrator anyone's (404 for an unknown user or project). A person
   * asking by their own subject before the control plane knows them is provisioned first.
   */
  async readAs(caller: Principal, query: EffectivePermissionsQuery): Promise<EffectivePermissionsAnswer> {
    const readsAnyone = caller.kind === 'machine' || caller.isAdmin;
    const asksOwnSubject = caller.kind === 'person' && query.user.subject === caller.subject;
    if (!readsAnyone && query.user.subject !== undefined && !asksOwnSubject) throw new OthersPermissionsForbidden();

    let outcome = await this.outcome(query);
    if (outcome.found === 'no_user' && asksOwnSubject) {
      await this.users.forPrincipal(caller);
      outcome = await this.outcome(query);
    }
    if (outcome.found === 'no_user') {
      if (!readsAnyone) throw new OthersPermissionsForbidden();
      throw new UserNotFound(describeUser(query.user));
    }
    const subject = outcome.found === 'answer' ? outcome.answer.subject : outcome.subject;
    if (!readsAnyone && subject !== caller.subject) throw new OthersPermissionsForbidden();
    if (outcome.found === 'no_project') throw new ProjectNotFound(describeProject(query.project ?? {}));
    return outcome.answer;
  }

  private outcome(query: EffectivePermissionsQuery): Promise<Outcome> {
    const version = this.accessVersion.current;
    const key = cacheKey(query);
    const cached = this.cache.get(key);
    if (cached?.version === version) return Promise.resolve({ found: 'answer', answer: cached.answer });
    const pending = this.loading.get(key);
    if (pending?.version === version) return pending.outcome;

    // The version is read before the query: an answer that a concurrent change makes stale is
    // stored under the older version, so the next ask after that change's bump loads again.
    const outcome = this.load(query).then((result) => {
      if (result.found === 'answer') this.cache.set(key, { version, answer: result.answer });
      return result;
    });
    const entry = { version, outcome };
    this.loading.set(key, entry);
    const forget = () => {
      if (this.loading.get(key) === entry) this.loading.delete(key);
    };
    outcome.then(forget, forget);
    return outcome;
  }

  private async load({ user, project, grouped }: EffectivePermissionsQuery): Promise<Outcome> {
    if (user.id !== undefined && !isUuid(user.id)) return { found: 'no_user' };
    const by = user.id !== undefined ? 'id' : 'subject';
    const userValue = user.id ?? user.subject;

    if (grouped) {
      const rows = await this.rows(by, 'grouped', [userValue]);
      if (rows.length === 0) return { found: 'no_user' };
      return answerOf(rows[0], { user_id: rows[0].id, ...groupKeys(rows) });
    }

    let rows: Row[];
    if (project?.id !== undefined) {
      // (Callers in code may pass any string: a malformed id names no project, yet the user is still looked up.)
      rows = await this.rows(by, 'projectById', [userValue, isUuid(project.id) ? project.id : null]);
    } else if (project?.slug !== undefined) {
      rows = await this.rows(by, 'projectBySlug', [userValue, project.slug]);
    } else {
      rows = await this.rows(by, 'workspace', [userValue]);
    }
    if (rows.length === 0) return { found: 'no_user' };
    if (project && (project.id !== undefined || project.slug !== undefined) && rows[0].project_id == null) {
      return { found: 'no_project', subject: rows[0].subject };
    }
    const keys = rows.flatMap((row) => (row.key === null ? [] : [row.key]));
    return answerOf(rows[0], { user_id: rows[0].id, permissions: sortedUnique(keys) });
  }

  /**
   * Runs a statement as a named (prepared) statement on TypeORM's own pool: each pooled
   * connection parses and plans it once instead of on every uncached answer.
   */
  private async rows(by: 'id' | 'subject', statement: Statement, values: unknown[]): Promise<Row[]> {
    const text = (by === 'id' ? BY_ID : BY_SUBJECT)[statement];
    const result = await this.pool.query<Row>({ name: `effective-permissions-${statement}-by-${by}`, text, values });
    return result.rows;
  }
}

function answerOf(user: Row, view: SinglePermissions | GroupedPermissions): Outcome {
  const body = JSON.stringify(view);
  return { found: 'answer', answer: Object.freeze({ userId: user.id, subject: user.subject, view: deepFreeze(view), body, etag: strongEntityTag(body) }) };
}

/** Unambiguous for any query values: the project part is length-prefixed, the user part comes last. */
function cacheKey({ user, project, grouped }: EffectivePermissionsQuery): string {
  const who = user.id !== undefined ? `i:${user.id.toLowerCase()}` : `s:${user.subject}`;
  if (grouped) return `g|${who}`;
  if (project?.id !== undefined) return `p${project.id.length}:${project.id.toLowerCase()}|${who}`;
  if (project?.slug !== undefined) return `s${project.slug.length}:${project.slug}|${who}`;
  return `w|${who}`;
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  return Object.freeze(value);
}

function describeUser(user: UserReference): string {
  return user.id !== undefined ? `with id ${user.id}` : `with subject ${user.subject}`;
}

function describeProject(project: ProjectReference): string {
  return project.id !== undefined ? `with id ${project.id}` : `with slug ${project.slug}`;
}
