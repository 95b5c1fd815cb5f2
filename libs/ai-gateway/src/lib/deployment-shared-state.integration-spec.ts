// Two replicas of the gateway sharing one Redis (AIGW_REDIS_URL or router_settings.redis_*): what
// one counts and cools down, the other routes by.
import { randomUUID } from 'node:crypto';
import { EMPTY_GATEWAY_CONFIG, GatewayConfig, GatewayDeployment } from './config/gateway-config';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { DeploymentRouter } from './deployment-router';
import { DeploymentSharedState } from './deployment-shared-state';
import { GatewayClock } from './gateway-clock';
import { GatewayRedis } from './limits/gateway-redis';

const clock: GatewayClock = { now: () => Date.now() };

function replica(deployments: GatewayDeployment[], redisUrl: string) {
  const settings: GatewayConfig = { ...EMPTY_GATEWAY_CONFIG, deployments, router: { ...EMPTY_GATEWAY_CONFIG.router, routingStrategy: 'usage-based-routing-v2' } };
  const redis = new GatewayRedis(redisUrl);
  const cooldowns = new DeploymentCooldowns(settings, clock);
  const router = new DeploymentRouter(settings, cooldowns, undefined, clock);
  const shared = new DeploymentSharedState(router, cooldowns, redis, clock);
  return { redis, cooldowns, router, shared };
}

/** Pulls until `seen` holds (the other replica's writes are not awaited), for at most two seconds. */
async function pulledUntil(state: DeploymentSharedState, seen: () => boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 40; attempt++) {
    await state.pull();
    if (seen()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('deployment state shared by replicas through Redis', () => {
  const url = process.env['TEST_REDIS_URL'];
  if (!url) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
  const run = randomUUID().slice(0, 8);
  const deployments: GatewayDeployment[] = ['busy', 'idle'].map((name) => ({ id: `${name}-${run}`, alias: 'chat', provider: 'openai', model: name, modelInfo: {}, rpm: 3 }));
  const [busy, idle] = deployments.map((d) => d.id) as [string, string];
  const a = replica(deployments, url);
  const b = replica(deployments, url);

  beforeAll(async () => {
    for (const side of [a, b]) {
      await side.redis.onApplicationBootstrap();
      side.shared.onApplicationBootstrap();
    }
  });

  afterAll(async () => {
    for (const side of [a, b]) {
      side.shared.onApplicationShutdown();
      await side.redis.onApplicationShutdown();
    }
  });

  it("routes by every replica's tokens and calls of the minute: a deployment busy on one replica is avoided by the other", async () => {
    a.router.started(busy);
    a.router.usedTokens(busy, 800);
    expect(b.router.pick('chat', new Set([idle]))?.id).toBe(busy);
    expect(await pulledUntil(b.shared, () => b.router.pick('chat', new Set(), Math.random)?.id === idle)).toBe(true);
    // busy's rpm of 3 is spent across both replicas: neither picks it any more this minute.
    b.router.started(busy);
    a.router.started(busy);
    expect(await pulledUntil(b.shared, () => b.router.pick('chat', new Set([idle]))?.id === idle)).toBe(true);
  });

  it("keeps a deployment another replica cooled down out of this replica's rotation until the cooldown ends", async () => {
    a.cooldowns.recordFailure(idle, { countable: true, retryAfterS: 30 });
    expect(a.cooldowns.isCooling(idle)).toBe(true);
    expect(await pulledUntil(b.shared, () => b.cooldowns.isCooling(idle))).toBe(true);
    expect(b.cooldowns.remainingMs(idle)).toBeGreaterThan(25_000);
  });
});
