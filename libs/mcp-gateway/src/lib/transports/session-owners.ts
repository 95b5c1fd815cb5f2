import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { headersForNextHop, withHopByHop } from '@arbor/platform';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';

// The edge has read the body already: it is sent on as JSON of its own length.
const REFRAMED = withHopByHop('content-length');

const KEY_PREFIX = 'arbor:mcpgw:session:';
/** A 2026-07-28 call waiting for its client's answer (InputRoundTrips), by its requestState. */
const PENDING_PREFIX = 'arbor:mcpgw:input:';
/** A session in use has its ownership renewed at most this often. */
const RENEW_EVERY_MS = 10_000;
/** Set on a request one replica passes to another: the owner never passes it on again. */
export const FORWARDED_HEADER = 'x-arbor-mcp-forwarded';

/**
 * Which replica holds each stateful session (MCPGW_REDIS_URL), so that a request for a session
 * another replica holds is passed to it — behind any load balancer, with no routing by
 * Mcp-Session-Id. A session's ownership lives as long as the session is idle-expirable
 * (sessionIdleMs, renewed as it is used) and goes with it. The same for a 2026-07-28 call waiting
 * for its client's answer: the retry carrying it reaches the replica the call waits on. Without
 * Redis, every session and call is the local replica's, as before.
 */
@Injectable()
export class SessionOwners implements OnModuleDestroy {
  private readonly logger = new Logger('SessionOwners');
  private readonly redis?: Redis;
  private readonly self: string = '';
  private readonly renewed = new Map<string, number>();

  constructor(@Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions) {
    if (!options.redisUrl || !options.replicaUrl) return;
    this.self = options.replicaUrl;
    this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1_000, connectTimeout: 2_000, retryStrategy: (attempt) => Math.min(attempt * 200, 2_000) });
    this.redis.on('error', (error: Error) => this.logger.warn(`Redis for session ownership: ${error.message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }

  /** This replica now holds the session. */
  claim(id: string): void {
    if (!this.redis) return;
    this.renewed.set(id, Date.now());
    this.redis.set(KEY_PREFIX + id, this.self, 'PX', this.options.sessionIdleMs).catch(() => undefined);
  }

  /** The session was used here: its ownership lasts another sessionIdleMs. */
  renew(id: string): void {
    if (!this.redis) return;
    const last = this.renewed.get(id) ?? 0;
    if (Date.now() - last < RENEW_EVERY_MS) return;
    this.renewed.set(id, Date.now());
    this.redis.pexpire(KEY_PREFIX + id, this.options.sessionIdleMs).catch(() => undefined);
  }

  /** The session ended here. */
  release(id: string): void {
    if (!this.redis) return;
    this.renewed.delete(id);
    this.redis.del(KEY_PREFIX + id).catch(() => undefined);
  }

  /** The replica that holds a session this one does not, if any. */
  async ownerOf(id: string): Promise<string | undefined> {
    if (!this.redis) return undefined;
    const owner = await this.redis.get(KEY_PREFIX + id).catch(() => null);
    return owner && owner !== this.self ? owner : undefined;
  }

  /** This replica holds a call waiting for its client's answer, for `ttlMs` at most. */
  claimPending(state: string, ttlMs: number): void {
    this.redis?.set(PENDING_PREFIX + state, this.self, 'PX', ttlMs).catch(() => undefined);
  }

  /** The call was answered here, or given up. */
  releasePending(state: string): void {
    this.redis?.del(PENDING_PREFIX + state).catch(() => undefined);
  }

  /** The replica that holds a waiting call this one does not, if any. */
  async ownerOfPending(state: string): Promise<string | undefined> {
    if (!this.redis) return undefined;
    const owner = await this.redis.get(PENDING_PREFIX + state).catch(() => null);
    return owner && owner !== this.self ? owner : undefined;
  }

  /**
   * Passes the request to the replica that holds its session, and its answer back as it streams
   * (SSE included). `body` is the JSON the edge has read already.
   */
  forward(owner: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const target = new URL(req.url ?? '/', owner);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = headersForNextHop(req.headers, REFRAMED);
    const send = target.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve) => {
      const outgoing = send(
        target,
        { method: req.method, headers: { ...headers, [FORWARDED_HEADER]: '1', ...(payload ? { 'content-length': payload.length } : {}) } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, headersForNextHop(answer.headers));
          answer.pipe(res);
          answer.once('end', resolve);
          answer.once('error', () => resolve());
        },
      );
      outgoing.once('error', (error) => {
        this.logger.warn(`passing a request to the replica holding its session failed: ${error.message}`);
        if (!res.headersSent)
          res
            .writeHead(502, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'The replica holding this session cannot be reached' }, id: null }));
        else res.destroy();
        resolve();
      });
      res.once('close', () => outgoing.destroy());
      outgoing.end(payload);
    });
  }
}
