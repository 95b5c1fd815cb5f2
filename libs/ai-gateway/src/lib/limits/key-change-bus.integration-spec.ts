import type { KeyVerifier } from '../keys/key-verifier';
import { GatewayRedis } from './gateway-redis';
import { KeyChangeBus } from './key-change-bus';

describe('KeyChangeBus', () => {
  it('evicts a changed key here at once and on the other replicas through Redis', async () => {
    const url = process.env['TEST_REDIS_URL'];
    if (!url) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    const evictedHere: string[] = [];
    let heardThere: (hash: string) => void = () => undefined;
    const evictedThere = new Promise<string>((resolve) => (heardThere = resolve));
    const redisA = new GatewayRedis(url);
    const redisB = new GatewayRedis(url);
    const here = new KeyChangeBus({ evict: (hash: string) => evictedHere.push(hash) } as unknown as KeyVerifier, redisA);
    const there = new KeyChangeBus({ evict: heardThere } as unknown as KeyVerifier, redisB);
    try {
      await Promise.all([redisA.onApplicationBootstrap(), redisB.onApplicationBootstrap()]);
      await Promise.all([here.onApplicationBootstrap(), there.onApplicationBootstrap()]);
      here.publish('a'.repeat(64));
      expect(evictedHere).toEqual(['a'.repeat(64)]);
      expect(await evictedThere).toBe('a'.repeat(64));
    } finally {
      await Promise.all([here.onApplicationShutdown(), there.onApplicationShutdown()]);
      await Promise.all([redisA.onApplicationShutdown(), redisB.onApplicationShutdown()]);
    }
  });

  it('without Redis evicts in this process only', () => {
    const evicted: string[] = [];
    const bus = new KeyChangeBus({ evict: (hash: string) => evicted.push(hash) } as unknown as KeyVerifier, new GatewayRedis());
    bus.publish('b'.repeat(64));
    expect(evicted).toEqual(['b'.repeat(64)]);
  });
});
