import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { CounterSeries, MetricsRegistry, SeriesCounter } from '@arbor/observability';
import { CallStages, type CallStage, type StageCall, type StagePass } from '../calls/call-stage';
import type { EndpointCodec } from '../endpoints/endpoint-codec';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import { AnswerStore, MemoryAnswerStore, RedisAnswerStore } from './answer-store';
import { cacheControls, CacheControls } from './cache-controls';
import type { ResponseCacheSettings } from './response-cache.settings';

// Bumped when what a key covers changes, so that old entries are never read as new ones.
const KEY_VERSION = 'v1';
/** A stream longer than this is passed on but not kept. */
export const MAX_CACHED_ANSWER_CHARS = 8 * 1024 * 1024;
// Before stored responses, which keep their answers as state (a cached one would never be a new object).
const RESPONSE_CACHE_ORDER = 20;
const HIT_HEADERS = Object.freeze({ 'x-arbor-cache-hit': 'true' });

/**
 * LiteLLM's response cache (`litellm_settings.cache`), as a stage of the call pipeline: an exact
 * match of the endpoint family, the request body (but its `cache` controls), the headers passed
 * upstream and the caller's project (unless `shared_across_projects`) answers from memory or
 * Redis without calling an upstream. Hits and misses are counted by alias. Families are cached by
 * the LiteLLM call types their codec declares (`callTypes`); a family that declares none is not.
 */
@Injectable()
export class ResponseCache implements CallStage, OnApplicationShutdown {
  readonly name = 'response-cache';
  readonly order = RESPONSE_CACHE_ORDER;
  readonly on: boolean;
  /** Whether a family is cached under the configured call types, decided once per codec. */
  private readonly cachedCodecs = new Map<EndpointCodec, boolean>();
  private readonly settings: ResponseCacheSettings | undefined;
  private readonly store: AnswerStore | undefined;
  private readonly hits: SeriesCounter<'alias'>;
  private readonly misses: SeriesCounter<'alias'>;
  private readonly hitsByAlias = new Map<string, CounterSeries<'alias'>>();
  private readonly missesByAlias = new Map<string, CounterSeries<'alias'>>();

  constructor(@Inject(GATEWAY_SETTINGS) gateway: GatewaySettings, registry: MetricsRegistry, stages: CallStages) {
    this.settings = gateway.litellm.cache;
    if (this.settings)
      this.store = this.settings.type === 'redis' && this.settings.redis ? new RedisAnswerStore(this.settings.redis) : new MemoryAnswerStore(this.settings.maxEntries);
    this.on = this.store !== undefined;
    stages.add(this);
    const registers = [registry];
    this.hits = new SeriesCounter({ name: 'arbor_aigw_cache_hits_total', help: 'Calls answered from the response cache, without an upstream.', labelNames: ['alias'], registers });
    this.misses = new SeriesCounter({ name: 'arbor_aigw_cache_misses_total', help: 'Calls the response cache had no answer for.', labelNames: ['alias'], registers });
  }

  /**
   * The cache's part in a call, or undefined when it takes none (the family not cached,
   * `default_off` without `use-cache`, a family that keeps its answers as state): before the plan,
   * the kept answer when there is one young enough; after a call that succeeded, its answer kept
   * (a stream's events as the client got them, unless they grow too long; never audio). Throws 400
   * for malformed `cache` controls.
   */
  open({ codec, caller, body, headers, alias, keepsAnswer }: StageCall): StagePass | undefined {
    const settings = this.settings;
    const store = this.store;
    if (!settings || !store || !this.caches(codec, settings.callTypes)) return undefined;
    const controls = cacheControls(body['cache']);
    if (settings.mode === 'default_off' && !controls.useCache) return undefined;
    // A stored response is a new object (its id the handle of the next turn): never a replay.
    if (keepsAnswer) return undefined;
    const key = `${settings.namespace}:${this.keyOf(codec, caller, body, headers, controls)}`;
    const ttlMs = (controls.ttlSeconds ?? settings.ttlSeconds) * 1000;
    let pieces: string[] | undefined = controls.noStore ? undefined : [];
    let chars = 0;
    return {
      beforePlan: async () => {
        if (controls.noCache) return undefined;
        const answer = await store.get(key);
        const fresh = answer && (controls.maxAgeSeconds === undefined || Date.now() - answer.storedAt <= controls.maxAgeSeconds * 1000) ? answer : undefined;
        (fresh ? this.counter(this.hits, this.hitsByAlias, alias) : this.counter(this.misses, this.missesByAlias, alias)).inc();
        return fresh ? { ...fresh, headers: HIT_HEADERS } : undefined;
      },
      piece: (text) => {
        if (!pieces) return;
        chars += text.length;
        if (chars > MAX_CACHED_ANSWER_CHARS) pieces = undefined;
        else pieces.push(text);
      },
      after: ({ status, streamed, raw, contentType, text, deploymentId, provider }) => {
        const body = streamed ? pieces?.join('') : text;
        if (controls.noStore || status !== 200 || raw || body === undefined || body.length > MAX_CACHED_ANSWER_CHARS) return;
        void store.set(key, { streamed, contentType, body, deploymentId, provider, storedAt: Date.now() }, ttlMs);
      },
    };
  }

  /** Whether the family's answers are cached: it declares call types, and one of them is configured (all by default). */
  private caches(codec: EndpointCodec, configured: ReadonlySet<string> | undefined): boolean {
    let cached = this.cachedCodecs.get(codec);
    if (cached === undefined) this.cachedCodecs.set(codec, (cached = cachesFamily(codec, configured)));
    return cached;
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

/** Whether a family's answers are cached: its codec declares LiteLLM call types, and one of them is configured (`undefined`: every one). */
export function cachesFamily(codec: Pick<EndpointCodec, 'callTypes'>, configured: ReadonlySet<string> | undefined): boolean {
  const declared = codec.callTypes;
  return declared !== undefined && (configured === undefined || declared.some((type) => configured.has(type)));
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
