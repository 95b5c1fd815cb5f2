// Which Redis the gateway's replicas share when AIGW_REDIS_URL and LiteLLM's router_settings both name one.
import { EMPTY_GATEWAY_CONFIG, GatewayConfig } from '../config/gateway-config';
import { withGatewayRedis } from './gateway-redis';

const fileNaming = (redisUrl?: string): GatewayConfig => ({ ...EMPTY_GATEWAY_CONFIG, router: { ...EMPTY_GATEWAY_CONFIG.router, ...(redisUrl ? { redisUrl } : {}) } });

describe('the Redis the gateway uses', () => {
  it("is router_settings' Redis when AIGW_REDIS_URL is not set, and AIGW_REDIS_URL's when the file names none", () => {
    expect(withGatewayRedis(fileNaming('redis://cache.internal:6380'), undefined).redisUrl).toBe('redis://cache.internal:6380');
    expect(withGatewayRedis(fileNaming(), 'redis://env.internal:6379').redisUrl).toBe('redis://env.internal:6379');
    expect(withGatewayRedis(fileNaming(), undefined).redisUrl).toBeUndefined();
  });

  it('is AIGW_REDIS_URL when both name one, quietly when they name the same server', () => {
    const same = withGatewayRedis(fileNaming('redis://:s3cret@cache.internal:6379'), 'redis://:s3cret@cache.internal/0');
    expect(same.redisUrl).toBe('redis://:s3cret@cache.internal/0');
    expect(same.config.warnings).toEqual([]);
  });

  it('is AIGW_REDIS_URL when they disagree, with a start-up warning naming both servers but neither password', () => {
    const chosen = withGatewayRedis(fileNaming('redis://:file-secret@cache.internal:6380/2'), 'redis://:env-secret@env.internal:6379');
    expect(chosen.redisUrl).toBe('redis://:env-secret@env.internal:6379');
    expect(chosen.config.warnings).toEqual(['router_settings names the Redis at cache.internal:6380/2 but AIGW_REDIS_URL names env.internal:6379: AIGW_REDIS_URL is used']);
    expect(chosen.config.warnings.join()).not.toMatch(/secret/);
  });
});
