import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OnProjectsChanged } from '@arbor/contract';
import { ContractMcpAccessPolicy } from '../access/contract-access-policy';
import { DatabaseServerRegistry } from '../registry/database-server-registry';
import { McpControlPlaneProjects } from './control-plane-projects';

// Rows of the project (by id, or by slug while not yet matched) take its slug and id.
const MOVE_SERVERS = `
  update virtual_servers set project = $2, project_id = $1, project_deleted_at = null, updated_at = now()
   where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null or project_deleted_at is not null)
  returning id`;
const MOVE_KEYS = `
  update mcp_api_keys set project = $2, project_id = $1, project_deleted_at = null
   where (project_id = $1 or (project_id is null and project = $2)) and (project <> $2 or project_id is null or project_deleted_at is not null)
  returning key_hash`;
const DELETE_SERVERS = `update virtual_servers set project_deleted_at = now(), updated_at = now() where project_id = $1 and project_deleted_at is null returning id`;
const DELETE_KEYS = `update mcp_api_keys set project_deleted_at = now() where project_id = $1 and project_deleted_at is null returning key_hash`;
const IDS_UNDER_SLUG = `
  select project_id from virtual_servers where project = $1 and project_id is not null
  union select project_id from mcp_api_keys where project = $1 and project_id is not null`;

/**
 * Project sync at /admin/sync/control-plane/projects (the contract's receiver): each named slug is
 * re-read from the control plane. A project found under the slug takes its servers and API keys
 * (by id, or by slug while unmatched); a slug that names no project any more had its projects
 * renamed away (moved) or deleted (servers hidden from every listing, keys refused). Idempotent;
 * a control plane that cannot answer fails the delivery, which the dispatcher retries.
 */
@Injectable()
export class McpProjectSync implements OnProjectsChanged {
  private readonly logger = new Logger('mcp-gateway-sync');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly projects: McpControlPlaneProjects,
    private readonly registry: DatabaseServerRegistry,
    private readonly policy: ContractMcpAccessPolicy,
  ) {}

  async projectsChanged(slugs: string[]): Promise<void> {
    let changed = false;
    for (const slug of slugs) {
      const project = await this.projects.find({ slug });
      if (project) {
        changed = (await this.apply(MOVE_SERVERS, MOVE_KEYS, [project.id, project.slug])) || changed;
        continue;
      }
      const known = (await this.dataSource.query(IDS_UNDER_SLUG, [slug])) as { project_id: string }[];
      for (const { project_id: id } of known) {
        const current = await this.projects.find({ id });
        const moved = current ? await this.apply(MOVE_SERVERS, MOVE_KEYS, [id, current.slug]) : await this.apply(DELETE_SERVERS, DELETE_KEYS, [id]);
        if (!current && moved) this.logger.log(`project "${slug}" was deleted in the control plane: its virtual servers and API keys are gone`);
        changed = moved || changed;
      }
    }
    // This replica at once; the others see the registry's change at their next poll.
    if (changed) await this.registry.refreshIfChanged();
  }

  private async apply(servers: string, keys: string, parameters: string[]): Promise<boolean> {
    const [movedServers, movedKeys] = await this.dataSource.transaction(async (manager) => [
      ((await manager.query(servers, parameters)) as [unknown[], number])[0],
      ((await manager.query(keys, parameters)) as [{ key_hash: string }[], number])[0],
    ]);
    for (const { key_hash: hash } of movedKeys as { key_hash: string }[]) this.policy.forgetKey(hash);
    return movedServers.length + movedKeys.length > 0;
  }
}
