import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { DeploymentRouter } from './deployment-router';
import { GatewayClock } from './gateway-clock';
import { GatewayRedis } from './limits/gateway-redis';

// How often each replica reads the others' counts and cooldowns: routing may lag them by this much.
export const SHARED_STATE_PULL_MS = 1_000;
// A minute's counters outlive it a little, so a late read still finds them.
const USAGE_TTL_S = 120;

const usageKey = (deploymentId: string, minute: number, what: 'requests' | 'tokens') => `aigw:deployment:${deploymentId}:${minute}:${what}`;
const cooldownKey = (deploymentId: string) => `aigw:deployment:${deploymentId}:cooldown`;

/**
 * Deployment state the replicas share through the gateway's Redis (AIGW_REDIS_URL, or LiteLLM's
 * router_settings.redis_*): each deployment's calls and tokens of the current minute
 * (usage-based-routing-v2 and the pre-call rpm/tpm checks; LiteLLM's reason for redis_host) and
 * its cooldowns. Changes are written as they happen, off the request path (one command, not
 * awaited); every SHARED_STATE_PULL_MS each replica reads them back into its router and cooldowns.
 * Without Redis, or while it is unreachable, each replica counts alone.
 */
@Injectable()
export class DeploymentSharedState implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly router: DeploymentRouter,
    private readonly cooldowns: DeploymentCooldowns,
    private readonly redis: GatewayRedis,
    private readonly clock: GatewayClock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.redis.client || this.router.deploymentIds().length === 0) return;
    if (this.router.tracksUsage) this.router.onUsage((id, minute, requests, tokens) => this.addUsage(id, minute, requests, tokens));
    this.cooldowns.onCooldown((id) => this.shareCooldown(id));
    this.timer = setInterval(() => void this.pull(), SHARED_STATE_PULL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Reads every replica's counts and cooldowns into this one's view. */
  async pull(): Promise<void> {
    const client = this.redis.ready;
    if (!client) return;
    const ids = this.router.deploymentIds();
    const minute = this.router.currentMinute();
    const tracksUsage = this.router.tracksUsage;
    const keys = ids.flatMap((id) => [cooldownKey(id), ...(tracksUsage ? [usageKey(id, minute, 'requests'), usageKey(id, minute, 'tokens')] : [])]);
    let values: (string | null)[];
    try {
      values = await client.mget(keys);
    } catch (error) {
      this.redis.unavailable(error);
      return;
    }
    const stride = tracksUsage ? 3 : 1;
    ids.forEach((id, index) => {
      const until = Number(values[index * stride]);
      if (Number.isFinite(until) && until > 0) this.cooldowns.adopt(id, until);
      if (tracksUsage) this.router.sharedUsage(id, minute, Number(values[index * stride + 1] ?? 0) || 0, Number(values[index * stride + 2] ?? 0) || 0);
    });
  }

  private addUsage(deploymentId: string, minute: number, requests: number, tokens: number): void {
    const client = this.redis.ready;
    if (!client) return;
    const key = usageKey(deploymentId, minute, requests > 0 ? 'requests' : 'tokens');
    client
      .multi()
      .incrby(key, requests > 0 ? requests : tokens)
      .expire(key, USAGE_TTL_S)
      .exec()
      .catch((error: unknown) => this.redis.unavailable(error));
  }

  private shareCooldown(deploymentId: string): void {
    const client = this.redis.ready;
    const until = this.cooldowns.coolingUntil(deploymentId);
    if (!client || until === undefined) return;
    const ms = Math.max(1, Math.ceil(until - this.clock.now()));
    client.set(cooldownKey(deploymentId), String(until), 'PX', ms).catch((error: unknown) => this.redis.unavailable(error));
  }
}
