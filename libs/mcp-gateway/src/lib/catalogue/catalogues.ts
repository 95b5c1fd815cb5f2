import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';
import { ServerRegistry } from '../registry/server-registry';
import { UpstreamOffer, UpstreamPool } from '../upstreams/upstream-pool';
import { Catalogue } from './catalogue';
import { CatalogueAccess, CatalogueCaller } from './catalogue-access';
import { CatalogueView } from './catalogue-view';
import { ToolCallGuardrails } from '../guardrails/tool-call-guardrails';
import { credentialCallerOf, type McpAccessGrant } from '../access/mcp-access';
import type { ToolCallGuard } from '../guardrails/tool-call-guard';
import { ToolCallAudit } from '../audit/tool-call-audit';
import { ToolRateLimits } from '../rate-limits/tool-rate-limits';

const MAX_CACHED_VIEWS = 1000;

/**
 * The one catalogue service every era and transport reads: a caller's catalogue of a virtual
 * server (`serverId`) or of `/mcp` (null: every server the caller may use), over views built
 * from the registry's selections and the upstreams' catalogues, reused until either changes.
 */
@Injectable()
export class Catalogues implements OnModuleDestroy {
  private readonly cache = new Map<string, { registryVersion: number; poolVersion: number; view: CatalogueView; guards: ReadonlyMap<string, ToolCallGuard> | undefined }>();
  private registryVersion = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly pool: UpstreamPool,
    @Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions,
    // Required: a runtime wired without them would pass every tool call unchecked.
    private readonly guardrails: ToolCallGuardrails,
    private readonly access: CatalogueAccess,
    private readonly limits: ToolRateLimits,
    // The app wires the audit (McpAuditModule); a runtime without a database has none.
    @Optional() private readonly audit?: ToolCallAudit,
  ) {
    this.unsubscribe = registry.onChange(() => this.registryVersion++);
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  /** What the caller sees now, and where each name it may send goes. */
  async open(caller: CatalogueCaller): Promise<Catalogue> {
    const { view, guards } = await this.view(caller.serverId, caller.grant, caller.sessions);
    return new Catalogue(view, this.options.pageSize, { caller, policy: this.access }, guards, { caller, limits: this.limits, ...(this.audit ? { audit: this.audit } : {}) });
  }

  private async view(serverId: string | null, grant: McpAccessGrant, sessions: boolean): Promise<{ view: CatalogueView; guards: ReadonlyMap<string, ToolCallGuard> | undefined }> {
    const grantedServers = grant.servers;
    // Asked on every call: a virtual server's key is built without sorting or joining a list.
    const ids = serverId === null ? [...grantedServers].sort() : undefined;
    const key = ids ? `union|${sessions}|${ids.join(',')}` : `server|${sessions}|${serverId}`;
    const { registryVersion } = this;
    const poolVersion = this.pool.version;
    const cached = this.cache.get(key);
    if (cached && cached.registryVersion === registryVersion && cached.poolVersion === poolVersion) return cached;
    const servers = (ids ?? [serverId as string]).map((id) => this.registry.server(id));
    const selections = servers.flatMap((server) => server?.selections ?? []);
    const upstreams = [...new Set(selections.map((s) => s.upstream))];
    // An upstream with per-caller auth is first listed on a caller's own session (see UpstreamPool.offer).
    const credentialCaller = credentialCallerOf(grant);
    const offers = new Map<string, UpstreamOffer>(await Promise.all(upstreams.map(async (u) => [u, await this.pool.offer(u, credentialCaller)] as const)));
    const view = new CatalogueView(selections, offers, serverId === null ? 'always' : 'on-collision', sessions);
    const built = { registryVersion, poolVersion, view, guards: this.guardrails.forServers(servers) };
    // Built before anyone could list an upstream of it: the next caller, with credentials there, tries again.
    if (upstreams.some((u) => this.pool.awaitingDiscovery(u))) return built;
    if (this.cache.size >= MAX_CACHED_VIEWS) this.cache.clear();
    // Built while a catalogue loaded: keep it under the version it was built from.
    this.cache.set(key, built);
    return built;
  }
}
