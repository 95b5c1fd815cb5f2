import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Optional, Query, UseGuards } from '@nestjs/common';
import { ApiError } from '@arbor/platform';
import { RegistryStore } from '../registry/registry-store';
import { selects } from '../registry/registry-rules';
import { UpstreamNotFound } from '../registry/registry.exception';
import { CatalogueItem, UpstreamCatalogue } from '../registry/upstream-catalogue';
import { CurrentMcpAdmin, McpAdminAccess, McpAdminCaller, McpAdminGuard } from './admin-access';

export interface CatalogueItemResponse {
  upstream: string;
  kind: CatalogueItem['kind'];
  name: string;
  description: string | null;
  /** The virtual servers exposing it, among those the caller operates. */
  servers: string[];
}

/**
 * /api/v1/tools: every tool, resource, resource template and prompt the upstreams offer right now
 * (from the runtime's catalogue), with the virtual servers exposing each; `?upstream=`, `?server=`.
 */
@ApiTags('tools')
@ApiBearerAuth()
@Controller('api/v1/tools')
@UseGuards(McpAdminGuard)
export class ToolsController {
  constructor(
    private readonly store: RegistryStore,
    private readonly access: McpAdminAccess,
    @Optional() private readonly catalogue?: UpstreamCatalogue,
  ) {}

  @Get()
  async list(
    @CurrentMcpAdmin() caller: McpAdminCaller,
    @Query('upstream') upstream?: string,
    @Query('server') serverId?: string,
  ): Promise<{ items: CatalogueItemResponse[] }> {
    const operated = await this.access.assertSomeOperator(caller, 'Reading the catalogue');
    if (!this.catalogue) throw new ApiError(503, 'catalogue_unavailable', 'This gateway runs without the upstream runtime, so it has no catalogue.');
    const { upstreams, servers } = await this.store.load();
    if (upstream !== undefined && !upstreams.some((row) => row.name === upstream)) throw new UpstreamNotFound(upstream);
    const only = serverId === undefined ? undefined : await this.store.server(serverId);
    if (only) await this.access.assertProjectOperator(caller, only.project, `Reading the catalogue of the server "${only.id}"`);
    const visible = servers.filter((server) => operated === 'all' || operated.includes(server.project));
    const items = this.catalogue
      .items(upstream)
      .filter((item) => !only || only.selections.some((selection) => selects(selection, item)))
      .map((item) => ({
        upstream: item.upstream,
        kind: item.kind,
        name: item.name,
        description: item.description ?? null,
        servers: visible.filter((server) => server.selections.some((selection) => selects(selection, item))).map((server) => server.id),
      }));
    return { items };
  }
}
