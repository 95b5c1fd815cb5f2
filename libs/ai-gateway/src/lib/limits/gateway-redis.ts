import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { GatewayConfig } from '../config/gateway-config';

/** AIGW_REDIS_URL; absent: every counter stays in process. */
export const GATEWAY_REDIS_URL = Symbol('GATEWAY_REDIS_URL');

const READY_WAIT_MS = 3_000;

/**
 * The connection that shares key limits between replicas. Callers ask `ready` per request and fall
 * back to in-process counters when it is undefined: an unreachable Redis degrades limits to
 * per-replica (logged once per outage) instead of refusing or stalling calls.
 */
@Injectable()
export class GatewayRedis implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ai-gateway-redis');
  readonly client: Redis | undefined;
  private down = false;

  constructor(@Optional() @Inject(GATEWAY_REDIS_URL) url?: string) {
    if (!url) return;
    this.client = new Redis(url, {
      // Fail at once while disconnected, so a request falls back instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.client.on('error', (error: Error) => this.unavailable(error));
    this.client.on('ready', () => {
      if (this.down) this.logger.log('Redis is reachable again; key limits are shared between replicas');
      this.down = false;
    });
  }

  /** The client when it can answer now. */
  get ready(): Redis | undefined {
    return this.client?.status === 'ready' ? this.client : undefined;
  }

  /** A command failed: warn once until Redis is back. Never logs the URL (it may hold a password). */
  unavailable(error: unknown): void {
    if (this.down) return;
    this.down = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(`Redis is unreachable (${reason}); key limits fall back to this replica's own counters`);
  }

  // So that a replica shares limits from its first request.
  async onApplicationBootstrap(): Promise<void> {
    const client = this.client;
    if (!client || client.status === 'ready') return;
    // Ready, refused (the error handler has warned) or silent for READY_WAIT_MS, whichever comes first.
    const ready = await new Promise<boolean>((resolve) => {
      const settle = (outcome: boolean) => {
        clearTimeout(timer);
        client.off('ready', onReady);
        client.off('error', onError);
        resolve(outcome);
      };
      const onReady = () => settle(true);
      const onError = () => settle(false);
      const timer = setTimeout(() => settle(false), READY_WAIT_MS);
      client.once('ready', onReady);
      client.once('error', onError);
    });
    if (!ready) this.unavailable(new Error(`not ready after ${READY_WAIT_MS} ms`));
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.client) return;
    await this.client.quit().catch(() => this.client?.disconnect());
  }
}

/**
 * The gateway's one Redis: AIGW_REDIS_URL, else router_settings' redis_url / redis_host (LiteLLM's
 * place for the Redis its replicas share). When both are given and name different servers,
 * AIGW_REDIS_URL wins (the environment wins over the file, as AIGW_MASTER_KEY does) and the start
 * says so, naming host and port only (the URLs may hold a password).
 */
export function withGatewayRedis(config: GatewayConfig, fromEnvironment: string | undefined): { redisUrl: string | undefined; config: GatewayConfig } {
  const fromFile = config.router.redisUrl;
  if (!fromEnvironment || !fromFile) return { redisUrl: fromEnvironment || fromFile, config };
  const where = (url: string) => {
    try {
      const parsed = new URL(url);
      return `${parsed.hostname}:${parsed.port || '6379'}${parsed.pathname.length > 1 ? parsed.pathname : ''}`;
    } catch {
      return 'an unreadable URL';
    }
  };
  if (normalisedRedisUrl(fromEnvironment) === normalisedRedisUrl(fromFile)) return { redisUrl: fromEnvironment, config };
  const warning = `router_settings names the Redis at ${where(fromFile)} but AIGW_REDIS_URL names ${where(fromEnvironment)}: AIGW_REDIS_URL is used`;
  return { redisUrl: fromEnvironment, config: { ...config, warnings: [...config.warnings, warning] } };
}

/** A Redis URL with its defaults spelt out (port 6379, database 0), so that equal servers compare equal. */
function normalisedRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}@${parsed.hostname}:${parsed.port || '6379'}/${parsed.pathname.replace(/^\//, '') || '0'}`;
  } catch {
    return url;
  }
}
