import { Inject, Injectable } from '@nestjs/common';
import { GatewayDeployment } from './config/gateway-config';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';

/** Alias → deployments, and the pick among them (simple-shuffle, weighted by rpm, then tpm). */
@Injectable()
export class DeploymentRouter {
  private readonly byAlias = new Map<string, GatewayDeployment[]>();

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
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

  pick(alias: string, random: () => number = Math.random): GatewayDeployment | undefined {
    const group = this.byAlias.get(alias);
    if (!group || group.length === 0) return undefined;
    if (group.length === 1) return group[0];
    const weights = group.map((d) => d.rpm ?? d.tpm ?? 1);
    let target = random() * weights.reduce((sum, weight) => sum + weight, 0);
    for (const [index, weight] of weights.entries()) {
      target -= weight;
      if (target < 0) return group[index];
    }
    return group[group.length - 1];
  }
}
