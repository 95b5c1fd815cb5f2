import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiError, excerpt } from '@arbor/platform';
import { DatabaseServerRegistry } from '../registry/database-server-registry';
import { RegistryStore, StoredServer } from '../registry/registry-store';
import { ManagedByConfig } from '../registry/registry.exception';
import type { UpstreamSelection } from '../registry/server-registry';
import { CurrentMcpAdmin, McpAdminAccess, McpAdminCaller, McpAdminGuard } from './admin-access';
import { serverResponse, ServerResponse } from './dto/admin.responses';
import { CreateServerDto, SelectionDto, UpdateServerDto } from './dto/server.dto';
import { McpControlPlaneProjects } from '../projects/control-plane-projects';
import type { RepositoryRecord } from '@arbor/contract';

/** /api/v1/servers: virtual servers, each managed by the operators (mcp-gateway.operator) of its project. */
@ApiTags('servers')
@ApiBearerAuth()
@Controller('api/v1/servers')
@UseGuards(McpAdminGuard)
export class ServersController {
  constructor(
    private readonly registry: DatabaseServerRegistry,
    private readonly store: RegistryStore,
    private readonly access: McpAdminAccess,
    private readonly projects: McpControlPlaneProjects,
  ) {}

  @Get()
  async list(@CurrentMcpAdmin() caller: McpAdminCaller, @Query('project') project?: string): Promise<{ servers: ServerResponse[] }> {
    if (project !== undefined) await this.access.assertProjectOperator(caller, project, 'Listing the servers of a project');
    const operated = await this.access.operatedProjects(caller);
    const { servers } = await this.store.load();
    const visible = servers.filter((server) => (project === undefined ? operated === 'all' || operated.includes(server.project) : server.project === project));
    return { servers: visible.map(serverResponse) };
  }

  @Get(':id')
  async get(@CurrentMcpAdmin() caller: McpAdminCaller, @Param('id') id: string): Promise<ServerResponse & { repositories: RepositoryRecord[] }> {
    const server = await this.store.server(id);
    await this.access.assertProjectOperator(caller, server.project, `Reading the server "${id}"`);
    // The project's repositories, as the control plane has them (what {{project.repository_token}} opens).
    return { ...serverResponse(server), repositories: await this.projects.repositories(server.project) };
  }

  @Post()
  async create(@CurrentMcpAdmin() caller: McpAdminCaller, @Body() body: CreateServerDto): Promise<ServerResponse> {
    await this.access.assertProjectOperator(caller, body.project, 'Adding a server');
    const project = await this.projects.require(body.project);
    const created = await this.registry.createServer({
      id: body.id,
      project: body.project,
      name: body.name ?? body.id,
      ...(body.description !== undefined ? { description: body.description } : {}),
      selections: selections(body.upstreams),
    });
    if (project) await this.store.recordProjectId(created.id, project.id);
    return serverResponse(created);
  }

  @Patch(':id')
  async update(@CurrentMcpAdmin() caller: McpAdminCaller, @Param('id') id: string, @Body() body: UpdateServerDto): Promise<ServerResponse> {
    await this.operated(caller, id, `Changing the server "${id}"`);
    // Moving a server to another project needs the operator role there too.
    if (body.project !== undefined) await this.access.assertProjectOperator(caller, body.project, 'Moving a server to a project');
    const project = body.project === undefined ? null : await this.projects.require(body.project);
    const updated = await this.registry.updateServer(id, {
      project: body.project,
      name: body.name,
      description: body.description,
      selections: body.upstreams === undefined ? undefined : selections(body.upstreams),
    });
    if (project) await this.store.recordProjectId(id, project.id);
    return serverResponse(updated);
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@CurrentMcpAdmin() caller: McpAdminCaller, @Param('id') id: string): Promise<void> {
    await this.operated(caller, id, `Removing the server "${id}"`);
    await this.registry.deleteServer(id);
  }

  /** An API-made server of a project the caller operates. */
  private async operated(caller: McpAdminCaller, id: string, action: string): Promise<StoredServer> {
    const server = await this.store.server(id);
    await this.access.assertProjectOperator(caller, server.project, action);
    if (server.source === 'config') throw new ManagedByConfig('server', id);
    return server;
  }
}

function selections(body: SelectionDto[]): UpstreamSelection[] {
  const seen = new Set<string>();
  return body.map((selection) => {
    if (seen.has(selection.upstream)) {
      throw new ApiError(400, 'invalid_request', `The upstream "${excerpt(selection.upstream)}" is selected twice; list everything it should expose in one entry.`);
    }
    seen.add(selection.upstream);
    return { upstream: selection.upstream, tools: selection.tools ?? '*', resources: selection.resources ?? '*', prompts: selection.prompts ?? '*' };
  });
}
