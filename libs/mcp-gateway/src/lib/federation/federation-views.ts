import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';
import { ServerRegistry } from '../registry/server-registry';
import { UpstreamOffer, UpstreamPool } from '../upstreams/upstream-pool';
import { CatalogueView } from './catalogue-view';

const MAX_CACHED_VIEWS = 1000;

/**
 * Views of virtual servers (`serverId`) and of `/mcp` (null: every server the caller may use),
 * built from the registry's selections and the upstreams' catalogues, reused until either changes.
 */
@Injectable()
export class FederationViews implements OnModuleDestroy {
  private readonly cache = new Map<string, { registryVersion: number; poolVersion: number; view: CatalogueView }>();
  private registryVersion = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly pool: UpstreamPool,
    @Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions,
  ) {
    this.unsubscribe = registry.onChange(() => this.registryVersion++);
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  async view(serverId: string | null, grantedServers: readonly string[], stateful: boolean): Promise<CatalogueView> {
    // Asked on every call: a virtual server's key is built without sorting or joining a list.
    const ids = serverId === null ? [...grantedServers].sort() : undefined;
    const key = ids ? `union|${stateful}|${ids.join(',')}` : `server|${stateful}|${serverId}`;
    const { registryVersion } = this;
    const poolVersion = this.pool.version;
    const cached = this.cache.get(key);
    if (cached && cached.registryVersion === registryVersion && cached.poolVersion === poolVersion) return cached.view;
    const selections = (ids ?? [serverId as string]).flatMap((id) => this.registry.server(id)?.selections ?? []);
    const upstreams = [...new Set(selections.map((s) => s.upstream))];
    const offers = new Map<string, UpstreamOffer>(await Promise.all(upstreams.map(async (u) => [u, await this.pool.offer(u)] as const)));
    const view = new CatalogueView(selections, offers, serverId === null ? 'always' : 'on-collision', stateful);
    if (this.cache.size >= MAX_CACHED_VIEWS) this.cache.clear();
    // Built while a catalogue loaded: keep it under the version it was built from.
    this.cache.set(key, { registryVersion, poolVersion, view });
    return view;
  }

  get pageSize(): number {
    return this.options.pageSize;
  }
}
