import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { matchUnmatchedProjects, OnProjectsChanged, ProjectStore, reconcileProjects } from '@arbor/contract';
import { ContractMcpAccessPolicy } from '../access/contract-access-policy';
import { DatabaseServerRegistry } from '../registry/database-server-registry';
import { McpControlPlaneProjects } from './control-plane-projects';

// Slugs of rows made before the control plane was configured (or while it was down): matched at start.
const UNMATCHED_SLUGS = `
  select distinct project from virtual_servers where project_id is null
  union select distinct project from mcp_api_keys where project_id is null
  union select distinct project from agents where project_id is null`;

// Rows of the project (by id, or by slug while not yet matched) take its slug and id.
const MOVE_SERVERS = `
  update virtual_servers set project = $2, project_id = $1, project_deleted_at = null, updated_at = now()
   where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null or project_deleted_at is not null)
  returning id`;
const MOVE_KEYS = `
  update mcp_api_keys set project = $2, project_id = $1, project_deleted_at = null
   where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null or project_deleted_at is not null)
  returning key_hash`;
const MOVE_AGENTS = `
  update agents set project = $2, project_id = $1, project_deleted_at = null, updated_at = now()
   where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null or project_deleted_at is not null)
  returning name`;
const DELETE_AGENTS = `update agents set project_deleted_at = now(), updated_at = now() where project_id = $1 and project_deleted_at is null returning name`;
const DELETE_SERVERS = `update virtual_servers set project_deleted_at = now(), updated_at = now() where project_id = $1 and project_deleted_at is null returning id`;
const DELETE_KEYS = `update mcp_api_keys set project_deleted_at = now() where project_id = $1 and project_deleted_at is null returning key_hash`;
const IDS_UNDER_SLUG = `
  select project_id from virtual_servers where project = $1 and project_id is not null
  union select project_id from mcp_api_keys where project = $1 and project_id is not null
  union select project_id from agents where project = $1 and project_id is not null`;

/**
 * Project sync at /admin/sync/control-plane/projects (the contract's receiver), reconciled with the
 * contract's reconcileProjects(): a project found under a slug takes its servers, agents and API
 * keys (by id, or by slug while unmatched); a deleted project's servers and agents are hidden from
 * every listing (and its agents no longer served) and its keys refused. Idempotent; a control plane that cannot answer fails the delivery, which the
 * dispatcher retries.
 */
@Injectable()
export class McpProjectSync implements OnProjectsChanged, ProjectStore, OnApplicationBootstrap {
  private readonly logger = new Logger('mcp-gateway-sync');
  private changed = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly projects: McpControlPlaneProjects,
    private readonly registry: DatabaseServerRegistry,
    private readonly policy: ContractMcpAccessPolicy,
  ) {}

  async projectsChanged(slugs: string[]): Promise<void> {
    await reconcileProjects(this.projects, slugs, this);
    // This replica at once; the others see the registry's change at their next poll.
    if (this.changed) {
      this.changed = false;
      await this.registry.refreshIfChanged();
    }
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
    await this.apply(MOVE_SERVERS, MOVE_KEYS, MOVE_AGENTS, [id, slug]);
  }

  async deleted(id: string, slug: string): Promise<void> {
    if (await this.apply(DELETE_SERVERS, DELETE_KEYS, DELETE_AGENTS, [id]))
      this.logger.log(`project "${slug}" was deleted in the control plane: its virtual servers, agents and API keys are gone`);
  }

  private async apply(servers: string, keys: string, agents: string, parameters: string[]): Promise<boolean> {
    const [movedServers, movedKeys, movedAgents] = await this.dataSource.transaction(async (manager) => [
      ((await manager.query(servers, parameters)) as [unknown[], number])[0],
      ((await manager.query(keys, parameters)) as [{ key_hash: string }[], number])[0],
      ((await manager.query(agents, parameters)) as [unknown[], number])[0],
    ]);
    for (const { key_hash: hash } of movedKeys as { key_hash: string }[]) this.policy.forgetKey(hash);
    const changed = movedServers.length + movedKeys.length + movedAgents.length > 0;
    if (changed) this.changed = true;
    return changed;
  }
}
