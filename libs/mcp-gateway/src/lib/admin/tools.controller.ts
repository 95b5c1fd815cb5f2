import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Controller, Get, Optional, Query, Req } from '@nestjs/common';
import { GuardedRequest, PermissionGuard, PermittedProjects, RequirePermission } from '@arbor/contract';
import { ApiError } from '@arbor/platform';
import { RegistryStore } from '../registry/registry-store';
import { selects } from '../registry/registry-rules';
import { UpstreamNotFound } from '../registry/registry.exception';
import { CatalogueItem, UpstreamCatalogue } from '../registry/upstream-catalogue';
import { MCP_GATEWAY, READERS } from './admin-access';
import { roleNeededOn } from '../tool-access/tool-access-policy';
import type { ItemRole } from '../registry/server-registry';

/** An item of an upstream's catalogue, with the caller's servers that expose it. */
export class CatalogueItemResponse {
  @ApiProperty()
  upstream!: string;

  @ApiProperty({ enum: ['tool', 'resource', 'resource-template', 'prompt'] })
  kind!: CatalogueItem['kind'];

  @ApiProperty({ description: 'As the upstream names it (a URI for a resource).' })
  name!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({ type: [String], description: 'The virtual servers exposing it, among those the caller reads.' })
  servers!: string[];

  @ApiProperty({ description: 'A tool whose annotations say `destructiveHint: true`: it needs the operator role unless tool_roles names it.' })
  destructive!: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['operator', 'viewer'] },
    description: 'The role it needs on each of those servers: `operator`, or `viewer` (any role); see tool_roles.',
  })
  required_roles!: Record<string, ItemRole>;
}

export class CatalogueResponse {
  @ApiProperty({ type: [CatalogueItemResponse] })
  items!: CatalogueItemResponse[];
}

/**
 * /api/v1/tools: every tool, resource, resource template and prompt the upstreams offer right now
 * (from the runtime's catalogue), with the virtual servers exposing each; `?upstream=`, `?server=`.
 */
@ApiTags('tools')
@ApiBearerAuth()
@Controller('api/v1/tools')
export class ToolsController {
  constructor(
    private readonly store: RegistryStore,
    private readonly permissions: PermissionGuard,
    @Optional() private readonly catalogue?: UpstreamCatalogue,
  ) {}

  @Get()
  @ApiQuery({ name: 'upstream', required: false, description: "Only this upstream's items." })
  @ApiQuery({ name: 'server', required: false, description: 'Only the items this virtual server exposes.' })
  @ApiOkResponse({ type: CatalogueResponse })
  @RequirePermission(MCP_GATEWAY, READERS, { project: 'any' })
  async list(
    @Req() request: GuardedRequest,
    @PermittedProjects() operated: 'all' | string[],
    @Query('upstream') upstream?: string,
    @Query('server') serverId?: string,
  ): Promise<CatalogueResponse> {
    if (!this.catalogue) throw new ApiError(503, 'catalogue_unavailable', 'This gateway runs without the upstream runtime, so it has no catalogue.');
    const { upstreams, servers } = await this.store.load();
    if (upstream !== undefined && !upstreams.some((row) => row.name === upstream)) throw new UpstreamNotFound(upstream);
    const only = serverId === undefined ? undefined : await this.store.server(serverId);
    if (only) await this.permissions.requireOn(request, MCP_GATEWAY, READERS, { slug: only.project });
    const visible = servers.filter((server) => operated === 'all' || operated.includes(server.project));
    const items = this.catalogue
      .items(upstream)
      .filter((item) => !only || only.selections.some((selection) => selects(selection, item)))
      .map((item) => {
        const exposing = visible.filter((server) => server.selections.some((selection) => selects(selection, item)));
        return {
          upstream: item.upstream,
          kind: item.kind,
          name: item.name,
          description: item.description ?? null,
          servers: exposing.map((server) => server.id),
          destructive: item.destructive === true,
          required_roles: Object.fromEntries(exposing.map((server) => [server.id, roleNeededOn(server, item)])),
        };
      });
    return { items };
  }
}
