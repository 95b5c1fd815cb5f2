import { Inject, Injectable, Optional } from '@nestjs/common';
import { providerAdapterFor } from '@arbor/provider-adapters';
import { GatewayDeployment, RoutingStrategy } from './config/gateway-config';
import { KnownModels } from './config/known-models';
import { fillTemplate, patternSpecificity } from './config/wildcard-alias';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';

/** The deployments of one wildcard `model_name` (`anthropic/*`), tried for names no exact alias has. */
interface WildcardGroup {
  alias: string;
  pattern: RegExp;
  deployments: GatewayDeployment[];
}

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
  /** Most specific first; `*` last. */
  private readonly wildcards: WildcardGroup[] = [];
  private readonly byId = new Map<string, GatewayDeployment>();
  private readonly known: KnownModels;
  private readonly unserved: Readonly<Record<string, string>>;
  private readonly strategy: RoutingStrategy;
  private readonly inFlight = new Map<string, number>();
  private readonly latencyMs = new Map<string, number>();

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    @Optional() private readonly cooldowns?: DeploymentCooldowns,
  ) {
    this.strategy = settings.router.routingStrategy;
    this.known = settings.knownModels ?? new KnownModels();
    this.unserved = settings.unservedAliases ?? {};
    for (const deployment of settings.deployments) {
      this.byId.set(deployment.id, deployment);
      if (deployment.wildcard) {
        const group = this.wildcards.find((candidate) => candidate.alias === deployment.alias);
        if (group) group.deployments.push(deployment);
        else this.wildcards.push({ alias: deployment.alias, pattern: deployment.wildcard.pattern, deployments: [deployment] });
        continue;
      }
      const group = this.byAlias.get(deployment.alias) ?? [];
      group.push(deployment);
      this.byAlias.set(deployment.alias, group);
    }
    this.wildcards.sort((a, b) => patternSpecificity(b.alias) - patternSpecificity(a.alias));
  }

  /** The configured aliases, wildcard ones (`anthropic/*`) as written. */
  aliases(): string[] {
    return [...this.byAlias.keys(), ...this.wildcards.map((group) => group.alias)];
  }

  /**
   * What `/v1/models` lists, as LiteLLM's proxy does: every exact alias, and for each wildcard
   * alias its provider's known models under the names it serves them by (`anthropic/*` →
   * `anthropic/claude-sonnet-4-5`, …); the wildcard aliases themselves with `withWildcards`.
   */
  listedModels(withWildcards = false): string[] {
    const names = new Set(this.byAlias.keys());
    for (const group of this.wildcards) {
      if (withWildcards) names.add(group.alias);
      for (const deployment of group.deployments) {
        const template = deployment.wildcard?.template ?? '';
        const slash = group.alias.indexOf('/');
        // Only `<prefix>/*` over `<provider>/*` expands, as LiteLLM's get_known_models_from_wildcard.
        if (deployment.provider === '' || slash < 0 || group.alias.slice(slash + 1) !== '*' || !template.endsWith('/*')) continue;
        for (const model of this.known.modelsOf(deployment.provider)) names.add(`${group.alias.slice(0, slash)}/${model}`);
      }
    }
    return [...names];
  }

  has(alias: string): boolean {
    return this.byAlias.has(alias) || this.wildcardFor(alias) !== undefined;
  }

  /** Why an alias whose deployments name only providers this gateway does not serve cannot be called. */
  unservedReason(alias: string): string | undefined {
    return this.has(alias) ? undefined : this.unserved[alias];
  }

  /** The configured model_name a name is served by: itself, or the wildcard alias that matches it. */
  groupName(alias: string): string {
    return this.byAlias.has(alias) ? alias : (this.wildcardFor(alias)?.alias ?? alias);
  }

  deployment(id: string): GatewayDeployment | undefined {
    return this.byId.get(id);
  }

  /** How many deployments the alias has (cooling or not). */
  size(alias: string): number {
    return this.group(alias)?.length ?? 0;
  }

  /**
   * A deployment of the alias that is not cooling down, preferring those not in `tried`;
   * undefined when the alias is unknown or every deployment cools down.
   */
  pick(alias: string, tried: ReadonlySet<string> = new Set(), random: () => number = Math.random): GatewayDeployment | undefined {
    const picked = this.pickConfigured(alias, tried, random);
    return picked?.wildcard ? this.servedBy(picked, alias) : picked;
  }

  private pickConfigured(alias: string, tried: ReadonlySet<string>, random: () => number): GatewayDeployment | undefined {
    const group = this.group(alias);
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
    const group = this.group(alias) ?? [];
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

  private group(alias: string): GatewayDeployment[] | undefined {
    return this.byAlias.get(alias) ?? this.wildcardFor(alias)?.deployments;
  }

  /** The most specific wildcard alias that matches the name and can serve it (a provider for it is known). */
  private wildcardFor(alias: string): WildcardGroup | undefined {
    return this.wildcards.find((group) => group.pattern.test(alias) && group.deployments.some((deployment) => this.servedBy(deployment, alias)));
  }

  /**
   * A wildcard deployment as it serves one name: the template filled in (`anthropic/*` → the
   * name's model), and for a template without provider (`*`) the provider resolved as LiteLLM
   * does: the name's prefix, else the known-model map. Same id, so cooldowns stay per deployment.
   */
  private servedBy(deployment: GatewayDeployment, alias: string): GatewayDeployment | undefined {
    const { wildcard } = deployment;
    if (!wildcard) return deployment;
    const filled = fillTemplate(wildcard.pattern, deployment.provider === '' ? wildcard.template : deployment.model, alias);
    if (filled === undefined || filled === '') return undefined;
    if (deployment.provider !== '') return { ...deployment, model: filled };
    const slash = filled.indexOf('/');
    const prefix = slash > 0 ? filled.slice(0, slash) : undefined;
    if (prefix !== undefined && providerAdapterFor(prefix)) return { ...deployment, provider: prefix, model: filled.slice(slash + 1) };
    const provider = this.known.providerOf(filled);
    return provider ? { ...deployment, provider, model: filled } : undefined;
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
