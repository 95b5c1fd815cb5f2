import { Inject, Injectable, Optional } from '@nestjs/common';
import { GatewayDeployment, RoutingStrategy } from './config/gateway-config';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';

// Weight of the newest latency sample: recent enough to follow a slowing upstream, smooth enough
// that one slow answer does not move all traffic.
const LATENCY_SMOOTHING = 0.3;

/**
 * Alias → deployments, and the pick among them by `routing_strategy`: `simple-shuffle` (random,
 * weighted by rpm, then tpm), `least-busy` (fewest calls in flight in this replica) or
 * `latency-based-routing` (lowest smoothed time to the upstream's first byte; deployments not yet
 * measured are tried first). Deployments cooling down are skipped; a retry prefers a deployment
 * not tried yet.
 */
@Injectable()
export class DeploymentRouter {
  private readonly byAlias = new Map<string, GatewayDeployment[]>();
  private readonly byId = new Map<string, GatewayDeployment>();
  private readonly strategy: RoutingStrategy;
  private readonly inFlight = new Map<string, number>();
  private readonly latencyMs = new Map<string, number>();

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    @Optional() private readonly cooldowns?: DeploymentCooldowns,
  ) {
    this.strategy = settings.router.routingStrategy;
    for (const deployment of settings.deployments) {
      const group = this.byAlias.get(deployment.alias) ?? [];
      group.push(deployment);
      this.byAlias.set(deployment.alias, group);
      this.byId.set(deployment.id, deployment);
    }
  }

  aliases(): string[] {
    return [...this.byAlias.keys()];
  }

  has(alias: string): boolean {
    return this.byAlias.has(alias);
  }

  deployment(id: string): GatewayDeployment | undefined {
    return this.byId.get(id);
  }

  /** How many deployments the alias has (cooling or not). */
  size(alias: string): number {
    return this.byAlias.get(alias)?.length ?? 0;
  }

  /**
   * A deployment of the alias that is not cooling down, preferring those not in `tried`;
   * undefined when the alias is unknown or every deployment cools down.
   */
  pick(alias: string, tried: ReadonlySet<string> = new Set(), random: () => number = Math.random): GatewayDeployment | undefined {
    const group = this.byAlias.get(alias);
    if (!group || group.length === 0) return undefined;
    const available = this.cooldowns ? group.filter((d) => !this.cooldowns?.isCooling(d.id)) : group;
    const fresh = available.filter((d) => !tried.has(d.id));
    const candidates = fresh.length > 0 ? fresh : available;
    if (candidates.length <= 1) return candidates[0];
    switch (this.strategy) {
      case 'least-busy':
        return lowest(candidates, (d) => this.inFlight.get(d.id) ?? 0, random);
      case 'latency-based-routing':
        return lowest(candidates, (d) => this.latencyMs.get(d.id) ?? -1, random);
      default:
        return weightedPick(candidates, random);
    }
  }

  /** Until the first deployment of the alias is available again (ms), for Retry-After. */
  soonestAvailableMs(alias: string): number {
    const group = this.byAlias.get(alias) ?? [];
    if (!this.cooldowns || group.length === 0) return 0;
    return Math.min(...group.map((d) => this.cooldowns?.remainingMs(d.id) ?? 0));
  }

  /** A call to the deployment started; `finished` must be called once it ended, however it ended. */
  started(deploymentId: string): void {
    this.inFlight.set(deploymentId, (this.inFlight.get(deploymentId) ?? 0) + 1);
  }

  finished(deploymentId: string): void {
    const count = (this.inFlight.get(deploymentId) ?? 0) - 1;
    if (count > 0) this.inFlight.set(deploymentId, count);
    else this.inFlight.delete(deploymentId);
  }

  /** Time until the upstream's answer began, for latency-based routing. */
  observeLatency(deploymentId: string, ms: number): void {
    const previous = this.latencyMs.get(deploymentId);
    this.latencyMs.set(deploymentId, previous === undefined ? ms : previous + LATENCY_SMOOTHING * (ms - previous));
  }
}

/** The candidate with the lowest score; ties broken at random so equal deployments share the load. */
function lowest(group: GatewayDeployment[], score: (d: GatewayDeployment) => number, random: () => number): GatewayDeployment | undefined {
  const best = Math.min(...group.map(score));
  const tied = group.filter((d) => score(d) === best);
  return tied[Math.floor(random() * tied.length)] ?? tied[0];
}

function weightedPick(group: GatewayDeployment[], random: () => number): GatewayDeployment | undefined {
  const weights = group.map((d) => d.rpm ?? d.tpm ?? 1);
  let target = random() * weights.reduce((sum, weight) => sum + weight, 0);
  for (const [index, weight] of weights.entries()) {
    target -= weight;
    if (target < 0) return group[index];
  }
  return group[group.length - 1];
}
