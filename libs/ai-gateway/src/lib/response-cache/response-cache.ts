import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { CounterSeries, MetricsRegistry, SeriesCounter } from '@arbor/observability';
import type { EndpointCodec } from '../endpoints/endpoint-codec';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import { AnswerStore, CachedAnswer, MemoryAnswerStore, RedisAnswerStore } from './answer-store';
import { cacheControls, CacheControls } from './cache-controls';
import type { ResponseCacheSettings } from './response-cache.settings';

// Bumped when what a key covers changes, so that old entries are never read as new ones.
const KEY_VERSION = 'v1';
/** A stream longer than this is passed on but not kept. */
export const MAX_CACHED_ANSWER_CHARS = 8 * 1024 * 1024;

/** What one call may do with the cache: look its answer up, keep the answer it gets. */
export interface CacheTicket {
  /** The kept answer, when there is one young enough for the request (never throws: an outage is a miss). */
  lookup(): Promise<CachedAnswer | undefined>;
  /** Whether the answer this call gets is to be kept. */
  readonly stores: boolean;
  /** Keeps the answer, off the request path. */
  store(answer: Omit<CachedAnswer, 'storedAt'>): void;
}

/**
 * LiteLLM's response cache (`litellm_settings.cache`), as a stage of the call pipeline: an exact
 * match of the endpoint family, the request body (but its `cache` controls), the headers passed
 * upstream and the caller's project (unless `shared_across_projects`) answers from memory or
 * Redis without calling an upstream. Hits and misses are counted by alias.
 */
@Injectable()
export class ResponseCache implements OnApplicationShutdown {
  private readonly settings: ResponseCacheSettings | undefined;
  private readonly store: AnswerStore | undefined;
  private readonly hits: SeriesCounter<'alias'>;
  private readonly misses: SeriesCounter<'alias'>;
  private readonly hitsByAlias = new Map<string, CounterSeries<'alias'>>();
  private readonly missesByAlias = new Map<string, CounterSeries<'alias'>>();

  constructor(@Inject(GATEWAY_SETTINGS) gateway: GatewaySettings, registry: MetricsRegistry) {
    this.settings = gateway.litellm.cache;
    if (this.settings) this.store = this.settings.type === 'redis' && this.settings.redis ? new RedisAnswerStore(this.settings.redis) : new MemoryAnswerStore(this.settings.maxEntries);
    const registers = [registry];
    this.hits = new SeriesCounter({ name: 'arbor_aigw_cache_hits_total', help: 'Calls answered from the response cache, without an upstream.', labelNames: ['alias'], registers });
    this.misses = new SeriesCounter({ name: 'arbor_aigw_cache_misses_total', help: 'Calls the response cache had no answer for.', labelNames: ['alias'], registers });
  }

  /**
   * The cache's part in a call, or undefined when it takes none (cache off, the family not cached,
   * `default_off` without `use-cache`, a family that keeps its answers as state). Throws 400 for
   * malformed `cache` controls.
   */
  ticket(codec: EndpointCodec, caller: GatewayCaller, body: Record<string, unknown>, headers: IncomingHttpHeaders, alias: string, keepsState: boolean): CacheTicket | undefined {
    const settings = this.settings;
    const store = this.store;
    if (!settings || !store || !settings.operations.has(codec.operation)) return undefined;
    const controls = cacheControls(body['cache']);
    if (settings.mode === 'default_off' && !controls.useCache) return undefined;
    // A stored response is a new object (its id the handle of the next turn): never a replay.
    if (keepsState) return undefined;
    const key = `${settings.namespace}:${this.keyOf(codec, caller, body, headers, controls)}`;
    const ttlMs = (controls.ttlSeconds ?? settings.ttlSeconds) * 1000;
    return {
      stores: !controls.noStore,
      lookup: async () => {
        if (controls.noCache) return undefined;
        const answer = await store.get(key);
        const fresh = answer && (controls.maxAgeSeconds === undefined || Date.now() - answer.storedAt <= controls.maxAgeSeconds * 1000) ? answer : undefined;
        (fresh ? this.counter(this.hits, this.hitsByAlias, alias) : this.counter(this.misses, this.missesByAlias, alias)).inc();
        return fresh;
      },
      store: (answer) => {
        if (controls.noStore || answer.body.length > MAX_CACHED_ANSWER_CHARS) return;
        void store.set(key, { ...answer, storedAt: Date.now() }, ttlMs);
      },
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store?.close();
  }

  /** SHA-256 of everything that changes the answer. */
  private keyOf(codec: EndpointCodec, caller: GatewayCaller, body: Record<string, unknown>, headers: IncomingHttpHeaders, controls: CacheControls): string {
    const { cache: _controls, ...asked } = body;
    const scope = this.settings?.sharedAcrossProjects ? '*' : caller.kind === 'virtual' ? `project:${caller.key.project}` : 'master';
    const forwarded = codec.forwardedHeaders(headers) ?? {};
    const material = [KEY_VERSION, codec.name, scope, controls.namespace ?? '', canonicalJson(forwarded), canonicalJson(asked)].join('\n');
    return createHash('sha256').update(material).digest('hex');
  }

  private counter(metric: SeriesCounter<'alias'>, byAlias: Map<string, CounterSeries<'alias'>>, alias: string): CounterSeries<'alias'> {
    let series = byAlias.get(alias);
    if (!series) byAlias.set(alias, (series = metric.series({ alias })));
    return series;
  }
}

/** JSON with object keys sorted, so that two requests differing only in field order share a key. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
