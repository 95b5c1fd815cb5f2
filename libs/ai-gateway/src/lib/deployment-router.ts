import { Inject, Injectable, Optional } from '@nestjs/common';
import { GatewayDeployment } from './config/gateway-config';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';

/**
 * Alias → deployments, and the pick among them (simple-shuffle, weighted by rpm, then tpm).
 * Deployments cooling down are skipped; a retry prefers a deployment not tried yet.
 */
@Injectable()
export class DeploymentRouter {
  private readonly byAlias = new Map<string, GatewayDeployment[]>();

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    @Optional() private readonly cooldowns?: DeploymentCooldowns,
  ) {
    for (const deployment of settings.deployments) {
      const group = this.byAlias.get(deployment.alias) ?? [];
      group.push(deployment);
      this.byAlias.set(deployment.alias, group);
    }
  }

  aliases(): string[] {
    return [...this.byAlias.keys()];
  }

  has(alias: string): boolean {
    return this.byAlias.has(alias);
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
    return weightedPick(fresh.length > 0 ? fresh : available, random);
  }

  /** Until the first deployment of the alias is available again (ms), for Retry-After. */
  soonestAvailableMs(alias: string): number {
    const group = this.byAlias.get(alias) ?? [];
    if (!this.cooldowns || group.length === 0) return 0;
    return Math.min(...group.map((d) => this.cooldowns?.remainingMs(d.id) ?? 0));
  }
}

function weightedPick(group: GatewayDeployment[], random: () => number): GatewayDeployment | undefined {
  if (group.length <= 1) return group[0];
  const weights = group.map((d) => d.rpm ?? d.tpm ?? 1);
  let target = random() * weights.reduce((sum, weight) => sum + weight, 0);
  for (const [index, weight] of weights.entries()) {
    target -= weight;
    if (target < 0) return group[index];
  }
  return group[group.length - 1];
}
