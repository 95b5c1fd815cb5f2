import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { KeyVerifier } from '../keys/key-verifier';
import { GatewayRedis } from './gateway-redis';

const CHANNEL = 'aigw:key-changes';

/**
 * Tells every replica that a key changed (blocked, rotated, limits, deleted), so that each evicts
 * its cached copy at once instead of within the cache's TTL. Without Redis only this process hears it.
 */
@Injectable()
export class KeyChangeBus implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ai-gateway-redis');
  private subscriber: Redis | undefined;

  constructor(
    private readonly verifier: KeyVerifier,
    private readonly redis: GatewayRedis,
  ) {}

  /** The key with this hash changed: evict it here and on every other replica. */
  publish(keyHash: string): void {
    this.verifier.evict(keyHash);
    this.redis.ready?.publish(CHANNEL, keyHash).catch((error: unknown) => this.redis.unavailable(error));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.redis.client) return;
    // A subscribed connection can do nothing else; it queues while disconnected and resubscribes itself.
    this.subscriber = this.redis.client.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber.on('error', () => undefined); // GatewayRedis reports outages
    this.subscriber.on('message', (_channel: string, keyHash: string) => this.verifier.evict(keyHash));
    const subscribed = this.subscriber.subscribe(CHANNEL).catch((error: unknown) => this.logger.warn(`key changes from other replicas are not heard: ${String(error)}`));
    // Listening before the first request when Redis is up; a Redis that is down must not hold the start up.
    if (this.redis.ready) await subscribed;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
