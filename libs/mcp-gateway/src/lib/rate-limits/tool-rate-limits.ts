import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { excerpt } from '@arbor/platform';
import type { CatalogueCaller } from '../catalogue/catalogue-access';
import { prefixName } from '../catalogue/catalogue-view';
import { McpMetrics } from '../metrics/mcp-metrics';
import { selects } from '../registry/registry-rules';
import { ServerRegistry, VirtualServerDefinition } from '../registry/server-registry';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';

/** The JSON-RPC error of a call over its tool's rate limit (a server error code of the gateway's own; HTTP's 429 in it). */
export const RATE_LIMITED = -32029;

const MINUTE_MS = 60_000;
const KEY_PREFIX = 'arbor:mcpgw:rate:';
// A minute's counter outlives its minute a little, for replicas whose clocks differ slightly.
const COUNTER_TTL_MS = 2 * MINUTE_MS;

/** A tool as a call names it: the upstream and its name there, and the name the caller sent. */
export interface LimitedTool {
  upstream: string;
  original: string;
  name: string;
}

interface AppliedLimit {
  server: string;
  /** The name the server's `tool_rate_limits` gives it. */
  tool: string;
  perMinute: number;
}

/**
 * Per-tool rate limits of virtual servers (`tool_rate_limits: {tool: {per_minute: N}}`), counted per
 * person or API key in fixed minutes. With MCPGW_REDIS_URL the counters are shared by every replica
 * (one pipelined round trip, only for a tool that has a limit); without it, or while Redis cannot
 * answer, each replica counts its own. On `/mcp` a tool is held to the limits of every server of the
 * caller's grant that selects it, each counted as on that server: `/mcp` is no way around them.
 */
@Injectable()
export class ToolRateLimits implements OnModuleDestroy {
  private readonly logger = new Logger('ToolRateLimits');
  private readonly redis?: Redis;
  private readonly local = new Map<string, { minute: number; count: number }>();
  private redisDown = false;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly metrics: McpMetrics,
    @Inject(MCP_RUNTIME_OPTIONS) options: ResolvedRuntimeOptions,
  ) {
    if (!options.redisUrl) return;
    // Fails at once while disconnected: a call falls back to this replica's counters, never waits.
    this.redis = new Redis(options.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.redis.on('error', (error: Error) => this.unavailable(error));
    this.redis.on('ready', () => {
      if (this.redisDown) this.logger.log('Redis is reachable again; tool rate limits are shared between replicas');
      this.redisDown = false;
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }

  /**
   * Counts the call against each limit of its tool; throws the JSON-RPC error (`RATE_LIMITED`, the
   * retry time in message and data) when one is over. Undefined, at no cost, when none applies.
   */
  admit(caller: CatalogueCaller, tool: LimitedTool): Promise<void> | undefined {
    const limits = this.limitsOf(caller, tool);
    if (limits.length === 0) return undefined;
    return this.count(caller.grant.principal, limits);
  }

  private limitsOf(caller: CatalogueCaller, tool: LimitedTool): AppliedLimit[] {
    if (caller.serverId !== null) {
      const limit = limitOn(this.registry.server(caller.serverId), tool);
      return limit ? [limit] : [];
    }
    return caller.grant.servers.flatMap((id) => {
      const server = this.registry.server(id);
      if (!server?.toolRateLimits || !server.selections.some((selection) => selects(selection, { upstream: tool.upstream, kind: 'tool', name: tool.original }))) return [];
      const limit = limitOn(server, tool);
      return limit ? [limit] : [];
    });
  }

  private async count(principal: string, limits: AppliedLimit[]): Promise<void> {
    const at = Date.now();
    const minute = Math.floor(at / MINUTE_MS);
    const keys = limits.map((limit) => `${KEY_PREFIX}${limit.server}:${limit.tool}:${minute}:${principal}`);
    const counts = (await this.shared(keys)) ?? keys.map((key) => this.countLocally(key, minute));
    const over = limits.findIndex((limit, index) => (counts[index] ?? 0) > limit.perMinute);
    if (over < 0) return;
    // A refused call does not count: the caller's next minute starts with its full allowance.
    this.uncount(keys);
    const limit = limits[over] as AppliedLimit;
    this.metrics.recordRateLimited(limit.server, limit.tool);
    const retryAfterSeconds = Math.max(1, Math.ceil(((minute + 1) * MINUTE_MS - at) / 1000));
    throw new McpError(
      RATE_LIMITED,
      `Rate limit exceeded: the tool "${excerpt(limit.tool)}" of the virtual server "${limit.server}" takes ${limit.perMinute} calls a minute from each caller; retry in ${retryAfterSeconds} s`,
      { server: limit.server, tool: limit.tool, per_minute: limit.perMinute, retry_after_seconds: retryAfterSeconds, retry_at: new Date((minute + 1) * MINUTE_MS).toISOString() },
    );
  }

  /** The counts after this call, from Redis; undefined when Redis is not there or cannot answer. */
  private async shared(keys: string[]): Promise<number[] | undefined> {
    const redis = this.redis;
    if (!redis || redis.status !== 'ready') return undefined;
    try {
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.incr(key).pexpire(key, COUNTER_TTL_MS);
      const results = (await pipeline.exec()) ?? [];
      for (const [error] of results) if (error) throw error;
      return keys.map((_, index) => Number(results[index * 2]?.[1] ?? 0));
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
  }

  private uncount(keys: string[]): void {
    const redis = this.redis;
    if (redis && redis.status === 'ready') {
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.decr(key);
      pipeline.exec().catch(() => undefined);
    }
    for (const key of keys) {
      const counter = this.local.get(key);
      if (counter) counter.count -= 1;
    }
  }

  private countLocally(key: string, minute: number): number {
    if (this.local.size > 10_000) for (const [name, counter] of this.local) if (counter.minute < minute) this.local.delete(name);
    const counter = this.local.get(key);
    if (counter && counter.minute === minute) return ++counter.count;
    this.local.set(key, { minute, count: 1 });
    return 1;
  }

  /** Never logs the URL (it may hold a password). */
  private unavailable(error: unknown): void {
    if (this.redisDown) return;
    this.redisDown = true;
    this.logger.warn(`Redis is unreachable (${error instanceof Error ? error.message : String(error)}); tool rate limits fall back to this replica's own counters`);
  }
}

/** The limit a server puts on a tool: named as it exposes it, or prefixed by its upstream. */
function limitOn(server: VirtualServerDefinition | undefined, tool: LimitedTool): AppliedLimit | undefined {
  const limits = server?.toolRateLimits;
  if (!server || !limits) return undefined;
  for (const name of [prefixName(tool.upstream, tool.original), tool.name, tool.original]) {
    if (Object.hasOwn(limits, name)) return { server: server.id, tool: name, perMinute: (limits[name] as { perMinute: number }).perMinute };
  }
  return undefined;
}
