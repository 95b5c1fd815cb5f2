import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, Get, HttpCode, Inject, Injectable, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { AgentCard } from '@a2a-js/sdk';
import { GuardedRequest, PermissionGuard, PermittedProjects, ProjectResolver, projectInBody, RequirePermission, RouteProject } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { MCP_GATEWAY, OPERATOR, READERS } from '../admin/admin-access';
import type { ToolCallHour } from '../metrics/recent-tool-calls';
import { McpControlPlaneProjects } from '../projects/control-plane-projects';
import { DatabaseServerRegistry } from '../registry/database-server-registry';
import { ManagedByConfig } from '../registry/registry.exception';
import { normaliseHeaders } from '../registry/registry-rules';
import { RegistryStore } from '../registry/registry-store';
import { CardUnreadable, readAgentCard } from './agent-card-reader';
import { keepingStoredSecret, readUpstreamAuth } from '../credentials/upstream-auth';
import { type AgentAuth, type AgentDefinition, NO_AUTH, staticHeaders } from './agent-definition';
import { AGENTS_OPTIONS, AgentDirectory, type AgentsOptions } from './agent-directory';
import { type AgentAuthWire, CreateAgentDto, UpdateAgentDto } from './agent.dto';
import { AgentCardUnreadable } from './agent.exception';
import { AgentMetrics } from './agent-metrics';
import { AgentCallHoursResponse, AgentListResponse, agentResponse, AgentResponse } from './agent.responses';
import type { StoredAgent } from './agent-rows';

/** The project of the agent named by the route's `:name` (404 for an unknown agent). */
@Injectable()
export class AgentProject implements ProjectResolver {
  constructor(private readonly store: RegistryStore) {}

  async projectOf(request: GuardedRequest): Promise<RouteProject> {
    return { slug: (await this.store.agent(request.params?.['name'] ?? '')).project };
  }
}

/**
 * /api/v1/agents: A2A agents, each managed by the operators (mcp-gateway.operator) of its project
 * and read (with their call figures) by its viewers too.
 * Registering reads the agent's card (v1.0, or v0.3 through the SDK's compat layer) through the
 * address guard; nothing is stored when it cannot be read. Static headers are write-only.
 */
@ApiTags('agents')
@ApiBearerAuth()
@Controller('api/v1/agents')
export class AgentsController {
  constructor(
    private readonly registry: DatabaseServerRegistry,
    private readonly store: RegistryStore,
    private readonly directory: AgentDirectory,
    private readonly permissions: PermissionGuard,
    private readonly projects: McpControlPlaneProjects,
    private readonly metrics: AgentMetrics,
    @Inject(AGENTS_OPTIONS) private readonly options: AgentsOptions,
  ) {}

  @Get()
  @ApiQuery({ name: 'project', required: false, description: "Only this project's agents; absent: of every project the caller may read." })
  @ApiOkResponse({ type: AgentListResponse })
  @RequirePermission(MCP_GATEWAY, READERS, { project: 'any' })
  async list(@PermittedProjects() readable: 'all' | string[], @Query('project') project?: string): Promise<AgentListResponse> {
    if (project !== undefined && readable !== 'all' && !readable.includes(project)) {
      throw new ApiError(403, 'forbidden', `Listing the agents of a project needs the permission mcp-gateway.viewer or mcp-gateway.operator on project "${excerpt(project)}".`);
    }
    const { agents } = await this.store.load();
    const visible = agents.filter((agent) => (project === undefined ? readable === 'all' || readable.includes(agent.project) : agent.project === project));
    return { agents: await Promise.all(visible.map((agent) => this.response(agent))) };
  }

  @Get(':name')
  @ApiOkResponse({ type: AgentResponse })
  @RequirePermission(MCP_GATEWAY, READERS, { project: AgentProject })
  async get(@Param('name') name: string): Promise<AgentResponse> {
    return this.response(await this.store.agent(name));
  }

  /** The agent's calls (proxied and as a tool) hour by hour over the last 24 hours, by A2A method: calls, errors, mean latency (this replica's). */
  @Get(':name/calls')
  @ApiOkResponse({ type: AgentCallHoursResponse, description: "Each A2A method's calls to the agent hour by hour over the last 24 hours (this replica's)." })
  @RequirePermission(MCP_GATEWAY, READERS, { project: AgentProject })
  async calls(@Param('name') name: string): Promise<AgentCallHoursResponse> {
    const agent = await this.store.agent(name);
    return { hours: this.metrics.recentCalls.byToolLastDay(agent.name).map(({ tool, ...hour }) => ({ ...hour, method: tool })) };
  }

  @Post()
  @ApiCreatedResponse({ type: AgentResponse, description: 'The new agent, its card read.' })
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: projectInBody() })
  async create(@Body() body: CreateAgentDto): Promise<AgentResponse> {
    const project = await this.projects.require(body.project);
    const definition: AgentDefinition = {
      name: body.name,
      url: body.url,
      project: body.project,
      ...(body.description !== undefined ? { description: body.description } : {}),
      auth: auth(body.auth),
    };
    const card = await this.readCard(definition);
    const created = await this.registry.createAgent(definition, card);
    if (project) await this.store.recordAgentProjectId(created.name, project.id);
    return this.response(created);
  }

  @Patch(':name')
  @ApiOkResponse({ type: AgentResponse, description: 'The agent as changed.' })
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: AgentProject })
  async update(@Req() request: GuardedRequest, @Param('name') name: string, @Body() body: UpdateAgentDto): Promise<AgentResponse> {
    const current = await this.apiMade(name);
    // Moving an agent to another project needs the operator role there too.
    if (body.project !== undefined) await this.permissions.requireOn(request, MCP_GATEWAY, OPERATOR, { slug: body.project });
    const project = body.project === undefined ? null : await this.projects.require(body.project);
    const next: AgentDefinition = {
      ...current,
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.project !== undefined ? { project: body.project } : {}),
      ...(body.auth !== undefined ? { auth: auth(body.auth, current.auth) } : {}),
    };
    // A new address or new credentials: the card is read again before anything changes.
    const card = body.url !== undefined || body.auth !== undefined ? await this.readCard(next) : undefined;
    const updated = await this.registry.updateAgent(
      name,
      { url: body.url, project: body.project, description: body.description, auth: body.auth === undefined ? undefined : next.auth },
      card,
    );
    if (project) await this.store.recordAgentProjectId(name, project.id);
    return this.response(updated);
  }

  @Delete(':name')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @HttpCode(204)
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: AgentProject })
  async delete(@Param('name') name: string): Promise<void> {
    await this.apiMade(name);
    await this.registry.deleteAgent(name);
  }

  /** Reads the card again now; the answer shows the agent down (with why) when it cannot be read. */
  @Post(':name/refresh')
  @ApiOkResponse({ type: AgentResponse, description: 'The agent with its card read again.' })
  @HttpCode(200)
  @RequirePermission(MCP_GATEWAY, OPERATOR, { project: AgentProject })
  async refresh(@Param('name') name: string): Promise<AgentResponse> {
    const agent = await this.store.agent(name);
    await this.registry.refreshIfChanged();
    await this.directory.refresh(name).catch((error: unknown) => {
      if (!(error instanceof CardUnreadable)) throw error;
    });
    return this.response(await this.store.agent(agent.name));
  }

  private async readCard(definition: AgentDefinition): Promise<AgentCard> {
    try {
      // Read for no one: per-caller auth sends no credentials for the card (as the directory's reads).
      return await readAgentCard(definition.url, staticHeaders(definition.auth), this.options.allowLinkLocal);
    } catch (error) {
      if (error instanceof CardUnreadable) throw new AgentCardUnreadable(definition.name, error.message);
      throw error;
    }
  }

  /** An agent made through this API (one from MCPGW_CONFIG is changed there). */
  private async apiMade(name: string): Promise<StoredAgent> {
    const agent = await this.store.agent(name);
    if (agent.source === 'config') throw new ManagedByConfig('agent', name);
    return agent;
  }

  private async response(agent: StoredAgent): Promise<AgentResponse> {
    const health = this.directory.health(agent.name)[0];
    return agentResponse(agent, this.options.publicUrl, this.directory.has(agent.name) ? await this.directory.card(agent.name) : undefined, health);
  }
}

/** One A2A method's calls to an agent in one hour (`method`: SendMessage, SendStreamingMessage, GetTask…). */
export type AgentCallHour = Omit<ToolCallHour, 'tool'> & { method: string };

/** The DTO's auth (already checked) as the registry keeps it; `current`: the agent's, whose OAuth client secret a PATCH for the same client keeps. */
function auth(body: AgentAuthWire | undefined, current?: AgentAuth): AgentAuth {
  if (body?.type === 'token_exchange' || body?.type === 'oauth') {
    const perCaller = readUpstreamAuth(body, 'auth', () => undefined);
    if (perCaller?.type === 'token_exchange') return perCaller;
    if (perCaller?.type === 'oauth') return keepingStoredSecret(perCaller, current);
    throw invalidAuth(`auth is not a valid ${body.type} auth`);
  }
  if (!body || body.type === 'none') {
    if (body?.headers && Object.keys(body.headers).length > 0) throw invalidAuth('headers need auth.type static');
    return NO_AUTH;
  }
  const headers = normaliseHeaders(body.headers ?? {});
  if (Object.keys(headers).length === 0) throw invalidAuth('auth.type static needs at least one header');
  return { type: 'static', headers };
}

function invalidAuth(message: string): ApiError {
  return new ApiError(400, 'invalid_request', `${message[0].toUpperCase()}${message.slice(1)}.`, { fields: { auth: [message] } });
}
