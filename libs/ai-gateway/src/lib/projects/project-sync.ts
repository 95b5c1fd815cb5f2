import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { matchUnmatchedProjects, OnProjectsChanged, ProjectStore, reconcileProjects } from '@arbor/contract';
import { KeyChangeBus } from '../limits/key-change-bus';
import { ControlPlaneProjects } from './control-plane-projects';

// Slugs of rows made before the control plane was configured (or while it was down): matched at start.
const UNMATCHED_SLUGS = `select distinct project from virtual_keys where project_id is null union select distinct project from spend_daily where project_id is null and project is not null`;

// Keys of the project (by id, or by slug while not yet matched) take its slug and id.
const MOVE_KEYS = `
  update virtual_keys set project = $2, project_id = $1, project_deleted_at = null, updated_at = now()
   where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null or project_deleted_at is not null)
  returning key_hash`;

// Spend rows move by merging into the rows of the new slug (the same day, key, alias and deployment may exist under both).
const MOVE_SPEND = `
  with moved as (
    delete from spend_daily where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null) returning *
  )
  insert into spend_daily as s (day, key_id, project, project_id, alias, deployment_id, provider, requests, prompt_tokens, completion_tokens, cost_usd,
                                estimated_requests, estimated_cost_usd, cache_hit_requests)
  select day, key_id, $2, $1, alias, deployment_id, max(provider), sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost_usd),
         sum(estimated_requests), sum(estimated_cost_usd), sum(cache_hit_requests)
    from moved group by day, key_id, alias, deployment_id
  on conflict (day, key_id, project, alias, deployment_id) do update set
    project_id = excluded.project_id,
    requests = s.requests + excluded.requests,
    prompt_tokens = s.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = s.completion_tokens + excluded.completion_tokens,
    cost_usd = s.cost_usd + excluded.cost_usd,
    estimated_requests = s.estimated_requests + excluded.estimated_requests,
    estimated_cost_usd = s.estimated_cost_usd + excluded.estimated_cost_usd,
    cache_hit_requests = s.cache_hit_requests + excluded.cache_hit_requests`;

const MOVE_CALLS = `
  with moved as (
    delete from calls_hourly where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null) returning *
  )
  insert into calls_hourly as c (hour, project, project_id, calls, errors)
  select hour, $2, $1, sum(calls), sum(errors) from moved group by hour
  on conflict (project, hour) do update set project_id = excluded.project_id, calls = c.calls + excluded.calls, errors = c.errors + excluded.errors`;

const DELETE_KEYS = `update virtual_keys set project_deleted_at = now(), updated_at = now() where project_id = $1 and project_deleted_at is null returning key_hash`;

// The projects once known under a slug that names none now: renamed away, or deleted.
const IDS_UNDER_SLUG = `
  select project_id from virtual_keys where project = $1 and project_id is not null
  union select project_id from spend_daily where project = $1 and project_id is not null`;

/**
 * Project sync, received through the contract's ControlPlaneSyncModule and reconciled with its
 * reconcileProjects(): a project found under a slug takes everything kept under its id or (not yet
 * matched) its slug — keys, spend and call rollups merge into the new slug on a rename; a deleted
 * project's keys stop, its spend stays reportable. Idempotent: a second delivery finds nothing to
 * change. A control plane that cannot answer fails the delivery, which the dispatcher retries.
 */
@Injectable()
export class AiGatewayProjectSync implements OnProjectsChanged, ProjectStore, OnApplicationBootstrap {
  private readonly logger = new Logger('ai-gateway-sync');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly projects: ControlPlaneProjects,
    private readonly changes: KeyChangeBus,
  ) {}

  projectsChanged(slugs: string[]): Promise<void> {
    return reconcileProjects(this.projects, slugs, this);
  }

  /** Rows kept without the project's id are matched at start; a control plane that is down does not hold the start up. */
  onApplicationBootstrap(): void {
    matchUnmatchedProjects(this.projects, this).catch((error: unknown) => this.logger.warn(`projects not yet matched with the control plane: ${(error as Error).message}`));
  }

  async slugsWithoutIds(): Promise<string[]> {
    return ((await this.dataSource.query(UNMATCHED_SLUGS)) as { project: string }[]).map((row) => row.project);
  }

  async idsUnder(slug: string): Promise<string[]> {
    return ((await this.dataSource.query(IDS_UNDER_SLUG, [slug])) as { project_id: string }[]).map((row) => row.project_id);
  }

  async current(id: string, slug: string): Promise<void> {
    const hashes = await this.dataSource.transaction(async (manager: EntityManager) => {
      const [keys] = (await manager.query(MOVE_KEYS, [id, slug])) as [{ key_hash: string }[], number];
      await manager.query(MOVE_SPEND, [id, slug]);
      await manager.query(MOVE_CALLS, [id, slug]);
      return keys.map((row) => row.key_hash);
    });
    for (const hash of hashes) this.changes.publish(hash);
    if (hashes.length > 0) this.logger.log(`${hashes.length} key(s) now belong to project "${slug}"`);
  }

  async deleted(id: string, slug: string): Promise<void> {
    const [keys] = (await this.dataSource.query(DELETE_KEYS, [id])) as [{ key_hash: string }[], number];
    for (const { key_hash: hash } of keys) this.changes.publish(hash);
    if (keys.length > 0) this.logger.log(`project "${slug}" was deleted in the control plane: its ${keys.length} key(s) stop working`);
  }
}
