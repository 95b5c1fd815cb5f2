import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { ResponseCacheSettings } from './response-cache.settings';

/** One answer as the client got it, kept to be replayed. */
export interface CachedAnswer {
  /** A stream's events as they were sent (its own event grammar), or the JSON answer. */
  streamed: boolean;
  contentType: string;
  body: string;
  /** When it was kept (epoch ms), for `cache: {"s-maxage": …}`. */
  storedAt: number;
  /** The deployment that answered it, for the spend record of a hit. */
  deploymentId: string;
  provider: string;
}

/**
 * Where answers are kept. Neither method throws: a store that cannot answer (Redis down) is a miss,
 * and an answer it cannot keep is not kept; the call goes on to the upstream either way.
 */
export interface AnswerStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  set(key: string, answer: CachedAnswer, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

// Memory is bounded by bytes as well as by entries: embeddings answers run to megabytes.
const MEMORY_BYTES = 64 * 1024 * 1024;

/** In this process: least recently used answers go first, each after its ttl. */
export class MemoryAnswerStore implements AnswerStore {
  private readonly answers: LRUCache<string, CachedAnswer>;

  constructor(maxEntries: number) {
    this.answers = new LRUCache<string, CachedAnswer>({ max: maxEntries, maxSize: MEMORY_BYTES, sizeCalculation: (answer) => answer.body.length + 200 });
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    return this.answers.get(key);
  }

  async set(key: string, answer: CachedAnswer, ttlMs: number): Promise<void> {
    // An answer larger than the whole cache is simply not kept.
    if (answer.body.length + 200 > MEMORY_BYTES) return;
    this.answers.set(key, answer, { ttl: ttlMs });
  }

  async close(): Promise<void> {
    this.answers.clear();
  }
}

/**
 * In Redis, shared by every replica (`SET … PX ttl`, `GET`). While Redis cannot answer, lookups are
 * misses and nothing is kept, so a call never waits on it for more than a command's timeout; the
 * outage is logged once, and its end once.
 */
export class RedisAnswerStore implements AnswerStore {
  private readonly logger = new Logger('ai-gateway-cache');
  private readonly client: Redis;
  private down = false;

  constructor(redis: NonNullable<ResponseCacheSettings['redis']>) {
    const options = {
      // Fail at once while disconnected, so that a call goes to the upstream instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 2_000,
      retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
    };
    this.client = 'url' in redis ? new Redis(redis.url, options) : new Redis({ ...redis, ...options });
    this.client.on('error', (error: Error) => this.unavailable(error));
    this.client.on('ready', () => {
      if (this.down) this.logger.log('the response cache reaches Redis again');
      this.down = false;
    });
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    if (this.client.status !== 'ready') return undefined;
    try {
      const text = await this.client.get(key);
      return text === null ? undefined : (JSON.parse(text) as CachedAnswer);
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
  }

  async set(key: string, answer: CachedAnswer, ttlMs: number): Promise<void> {
    if (this.client.status !== 'ready') return;
    try {
      await this.client.set(key, JSON.stringify(answer), 'PX', Math.max(1, Math.round(ttlMs)));
    } catch (error) {
      this.unavailable(error);
    }
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }

  /** Warns once per outage; never logs the address or password. */
  private unavailable(error: unknown): void {
    if (this.down) return;
    this.down = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(`the response cache cannot reach Redis (${reason}); calls go to the upstreams uncached until it is back`);
  }
}
