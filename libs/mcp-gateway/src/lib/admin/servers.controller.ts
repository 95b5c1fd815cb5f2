import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { GuardedRequest, PermissionGuard, PermittedProjects, projectInBody, RequirePermission } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { DatabaseServerRegistry } from '../registry/database-server-registry';
import { RegistryStore, ServerChanges, StoredServer } from '../registry/registry-store';
import { toolRateLimits } from '../registry/registry-rules';
import { ManagedByConfig } from '../registry/registry.exception';
import type { UpstreamSelection } from '../registry/server-registry';
import { MCP_GATEWAY, OPERATOR, READERS, ServerProject } from './admin-access';
import { ServerListResponse, serverResponse, ServerResponse, ServerWithRepositoriesResponse } from './dto/admin.responses';
import { CreateServerDto, SelectionDto, UpdateServerDto } from './dto/server.dto';
import { McpControlPlaneProjects } from '../projects/control-plane-projects';
import { ToolCallGuardrails } from '../guardrails/tool-call-guardrails';

/** /api/v1/servers: virtual servers, each managed by the operators (mcp-gateway.operator, asked of the control plane) of its project and read by its viewers. */
@ApiTags('servers')
@ApiBearerAuth()
@Controller('api/v1/servers')
export class ServersController {
  constructor(
    private readonly registry: DatabaseServerRegistry,
    private readonly store: RegistryStore,
    private readonly permissions: PermissionGuard,
    private readonly projects: McpControlPlaneProjects,
    private readonly guardrails: ToolCallGuardrails,
  ) {}

  @Get()
  @ApiQuery({ name: 'project', required: false, description: "Only this project's; absent: of every project the caller may read." })
  @ApiOkResponse({ type: ServerListResponse })
  @RequirePermission(MCP_GATEWAY, READERS, { project: 'any' })
  async list(@PermittedProjects() operated: 'all' | string[], @Query('project') project?: string): Promise<ServerListResponse> {
    if (project !== undefined && operated !== 'all' && !operated.includes(project)) {
      throw new ApiError(403, 'forbidden', `Listing the servers of a project needs the permission mcp-gateway.viewer or mcp-gateway.operator on project "${excerpt(project)}".`);
    }
    const { servers } = await this.store.load();
    const visible = servers.filter((server) => (project === undefined ? operated === 'all' || operated.includes(server.project) : server.project === project));
    return { servers: visible.map(serverResponse) };
  }

  @Get(':id')
  @ApiOkResponse({ type: ServerWithRepositoriesResponse, description: "The server, with its project's repositories as the control plane has them." })
  @RequirePermission(MCP_GATEWAY, READERS, { project: ServerProject })
  async get(@Param('id') id: string): Promise<ServerWithRepositoriesResponse> {
    const server = await this.store.server(id);
    // The project's repositories, as the control plane has them (what {{project.repository_token}} opens).
    return { ...serverResponse(server), repositories: await this.projects.repositories(server.project) };
  }

  @Post()
  @ApiCreatedResponse({ type: ServerResponse })
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: projectInBody() })
  async create(@Body() body: CreateServerDto): Promise<ServerResponse> {
    if (body.guardrails) this.guardrails.check(body.guardrails);
    const project = await this.projects.require(body.project);
    this.sameProjectAgents(body.project, selections(body.upstreams));
    const created = await this.registry.createServer({
      id: body.id,
      project: body.project,
      name: body.name ?? body.id,
      ...(body.description !== undefined ? { description: body.description } : {}),
      selections: selections(body.upstreams),
      ...(body.guardrails && body.guardrails.length > 0 ? { guardrails: [...new Set(body.guardrails)] } : {}),
      ...accessRules(body),
    });
    if (project) await this.store.recordProjectId(created.id, project.id);
    return serverResponse(created);
  }

  @Patch(':id')
  @ApiOkResponse({ type: ServerResponse, description: 'The server as changed.' })
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: ServerProject })
  async update(@Req() request: GuardedRequest, @Param('id') id: string, @Body() body: UpdateServerDto): Promise<ServerResponse> {
    await this.apiMade(id);
    if (body.guardrails) this.guardrails.check(body.guardrails);
    // Moving a server to another project needs the operator role there too.
    if (body.project !== undefined) await this.permissions.requireOn(request, MCP_GATEWAY, OPERATOR, { slug: body.project });
    const project = body.project === undefined ? null : await this.projects.require(body.project);
    const current = await this.store.server(id);
    this.sameProjectAgents(body.project ?? current.project, body.upstreams === undefined ? current.selections : selections(body.upstreams));
    const updated = await this.registry.updateServer(id, {
      project: body.project,
      name: body.name,
      description: body.description,
      selections: body.upstreams === undefined ? undefined : selections(body.upstreams),
      guardrails: body.guardrails === undefined ? undefined : [...new Set(body.guardrails)],
      ...accessRules(body),
    });
    if (project) await this.store.recordProjectId(id, project.id);
    return serverResponse(updated);
  }

  @Delete(':id')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @HttpCode(204)
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: ServerProject })
  async delete(@Param('id') id: string): Promise<void> {
    await this.apiMade(id);
    await this.registry.deleteServer(id);
  }

  /** An agent is its project's: a server of another project would let that project's callers reach it. */
  private sameProjectAgents(project: string, chosen: readonly UpstreamSelection[]): void {
    for (const selection of chosen) {
      const agent = selection.kind === 'agent' ? this.registry.agent(selection.upstream) : undefined;
      if (agent && agent.project !== project) {
        throw new ApiError(
          400,
          'agent_in_other_project',
          `The agent "${excerpt(agent.name)}" belongs to project "${agent.project}"; a virtual server of project "${excerpt(project)}" cannot include it.`,
        );
      }
    }
  }

  /** A server made through this API (one from MCPGW_CONFIG is changed there). */
  private async apiMade(id: string): Promise<StoredServer> {
    const server = await this.store.server(id);
    if (server.source === 'config') throw new ManagedByConfig('server', id);
    return server;
  }
}

/** The tool roles, resource and prompt roles, rate limits and audit setting a body gives, in the registry's shape. */
function accessRules(body: CreateServerDto | UpdateServerDto): Pick<ServerChanges, 'toolRoles' | 'resourceRoles' | 'promptRoles' | 'toolRateLimits' | 'auditPayloads'> {
  return {
    ...(body.tool_roles !== undefined ? { toolRoles: body.tool_roles } : {}),
    ...(body.resource_roles !== undefined ? { resourceRoles: body.resource_roles } : {}),
    ...(body.prompt_roles !== undefined ? { promptRoles: body.prompt_roles } : {}),
    ...(body.tool_rate_limits !== undefined ? { toolRateLimits: toolRateLimits(body.tool_rate_limits) } : {}),
    ...(body.audit_payloads !== undefined ? { auditPayloads: body.audit_payloads } : {}),
  };
}

function selections(body: SelectionDto[]): UpstreamSelection[] {
  const seen = new Set<string>();
  return body.map((selection): UpstreamSelection => {
    if (selection.agent !== undefined) {
      if (selection.upstream !== undefined || selection.tools !== undefined || selection.resources !== undefined || selection.prompts !== undefined) {
        throw new ApiError(400, 'invalid_request', `The entry of agent "${excerpt(selection.agent)}" takes only "agent": an agent is one tool.`);
      }
      if (seen.has(selection.agent)) throw new ApiError(400, 'invalid_request', `"${excerpt(selection.agent)}" is included twice.`);
      seen.add(selection.agent);
      return { upstream: selection.agent, kind: 'agent', tools: '*', resources: [], prompts: [] };
    }
    const upstream = selection.upstream as string;
    if (seen.has(upstream)) {
      throw new ApiError(400, 'invalid_request', `The upstream "${excerpt(upstream)}" is selected twice; list everything it should expose in one entry.`);
    }
    seen.add(upstream);
    return { upstream, tools: selection.tools ?? '*', resources: selection.resources ?? '*', prompts: selection.prompts ?? '*' };
  });
}
