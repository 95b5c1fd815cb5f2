import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Body, Controller, Delete, Get, HttpCode, Optional, Param, Patch, Post } from '@nestjs/common';
import { RequirePermission } from '@arbor/contract';
import { DatabaseServerRegistry } from '../registry/database-server-registry';
import { RegistryStore, StoredUpstream, UpstreamChanges } from '../registry/registry-store';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_TIMEOUT_MS, normaliseHeaders } from '../registry/registry-rules';
import { ManagedByConfig, UpstreamUrlNotAllowed } from '../registry/registry.exception';
import { UpstreamCatalogue } from '../registry/upstream-catalogue';
import { checkUpstreamUrl, UpstreamUrlRefused } from '../registry/upstream-url-guard';
import { MCP_GATEWAY, OPERATOR, READERS } from './admin-access';
import { McpAdminSettings } from './admin-settings';
import { UpstreamListResponse, upstreamResponse, UpstreamResponse } from './dto/admin.responses';
import { CreateUpstreamDto, UpdateUpstreamDto } from './dto/upstream.dto';
import { keepingStoredSecret, readUpstreamAuth, STATIC_AUTH, type UpstreamAuth, type UpstreamAuthWire } from '../credentials/upstream-auth';

/**
 * /api/v1/upstreams: the upstream MCP servers every project's virtual servers draw on. Reading
 * needs mcp-gateway.viewer or mcp-gateway.operator somewhere, changing needs the operator role at workspace level. Header values are
 * write-only.
 */
@ApiTags('upstreams')
@ApiBearerAuth()
@Controller('api/v1/upstreams')
export class UpstreamsController {
  constructor(
    private readonly registry: DatabaseServerRegistry,
    private readonly store: RegistryStore,
    private readonly settings: McpAdminSettings,
    @Optional() private readonly catalogue?: UpstreamCatalogue,
  ) {}

  @Get()
  @ApiOkResponse({ type: UpstreamListResponse, description: "Every upstream, with the runtime's health." })
  @RequirePermission(MCP_GATEWAY, READERS, { project: 'any' })
  async list(): Promise<UpstreamListResponse> {
    const { upstreams } = await this.store.load();
    return { upstreams: upstreams.map((upstream) => this.response(upstream)) };
  }

  @Get(':name')
  @ApiOkResponse({ type: UpstreamResponse })
  @RequirePermission(MCP_GATEWAY, READERS, { project: 'any' })
  async get(@Param('name') name: string): Promise<UpstreamResponse> {
    return this.response(await this.store.upstream(name));
  }

  @Post()
  @ApiCreatedResponse({ type: UpstreamResponse, description: 'The new upstream; the runtime connects to it.' })
  @RequirePermission(MCP_GATEWAY, OPERATOR)
  async create(@Body() body: CreateUpstreamDto): Promise<UpstreamResponse> {
    await this.checkUrl(body.url);
    const created = await this.registry.createUpstream({
      name: body.name,
      url: body.url,
      transport: body.transport ?? 'streamable-http',
      headers: normaliseHeaders(body.headers ?? {}),
      ...this.auth(body.auth),
      timeoutMs: body.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      maxConcurrency: body.max_concurrency ?? DEFAULT_MAX_CONCURRENCY,
    });
    return this.response(created);
  }

  @Patch(':name')
  @ApiOkResponse({ type: UpstreamResponse, description: 'The upstream as changed.' })
  @RequirePermission(MCP_GATEWAY, OPERATOR)
  async update(@Param('name') name: string, @Body() body: UpdateUpstreamDto): Promise<UpstreamResponse> {
    await this.apiMade(name);
    if (body.url !== undefined) await this.checkUrl(body.url);
    const current = body.auth === undefined ? undefined : (await this.store.upstream(name)).auth;
    const changes: UpstreamChanges = {
      ...(body.auth !== undefined ? { auth: this.auth(body.auth, current).auth ?? STATIC_AUTH } : {}),
      url: body.url,
      transport: body.transport,
      headers: body.headers === undefined ? undefined : normaliseHeaders(body.headers),
      timeoutMs: body.timeout_ms,
      maxConcurrency: body.max_concurrency,
    };
    return this.response(await this.registry.updateUpstream(name, changes));
  }

  @Delete(':name')
  @ApiNoContentResponse({ description: 'Deleted.' })
  @RequirePermission(MCP_GATEWAY, OPERATOR)
  @HttpCode(204)
  async delete(@Param('name') name: string): Promise<void> {
    await this.apiMade(name);
    await this.registry.deleteUpstream(name);
  }

  /** The DTO's auth (already checked) as the registry keeps it; an oauth one for the same client without a secret keeps the stored secret. */
  private auth(wire: UpstreamAuthWire | undefined, current?: UpstreamAuth): { auth?: UpstreamAuth } {
    // Checked by the DTO; a client secret the change leaves out is checked once the stored one is kept.
    const auth = readUpstreamAuth(wire, 'auth', () => undefined, { secretMayBeStored: true });
    if (!auth || auth.type === 'static') return {};
    return { auth: auth.type === 'oauth' ? keepingStoredSecret(auth, current) : auth };
  }

  /** Config rows are refused before anything else is checked: the answer is the same whatever the body. */
  private async apiMade(name: string): Promise<void> {
    if ((await this.store.upstream(name)).source === 'config') throw new ManagedByConfig('upstream', name);
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      await checkUpstreamUrl(url, { allowLinkLocal: this.settings.allowLinkLocal });
    } catch (error) {
      if (!(error instanceof UpstreamUrlRefused)) throw error;
      // A host that does not resolve yet is accepted: the runtime checks again when it connects.
      if (error.reason !== 'unresolvable') throw new UpstreamUrlNotAllowed(error.message);
    }
  }

  private response(upstream: StoredUpstream): UpstreamResponse {
    if (!this.catalogue) return upstreamResponse(upstream);
    return upstreamResponse(upstream, {
      health: this.catalogue.health(upstream.name)[0],
      toolCount: this.catalogue.items(upstream.name).filter((item) => item.kind === 'tool').length,
    });
  }
}
