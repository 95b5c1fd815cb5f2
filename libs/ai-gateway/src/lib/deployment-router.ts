import { Inject, Injectable, Optional } from '@nestjs/common';
import { providerAdapterFor } from '@arbor/provider-adapters';
import { GatewayDeployment, ModelGroupAlias, RoutingStrategy } from './config/gateway-config';
import { KnownModels } from './config/known-models';
import { fillTemplate, patternSpecificity } from './config/wildcard-alias';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { GatewayClock } from './gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';
import { ModelPrices } from './pricing/model-prices';

/** The deployments of one wildcard `model_name` (`anthropic/*`), tried for names no exact alias has. */
interface WildcardGroup {
  alias: string;
  pattern: RegExp;
  deployments: GatewayDeployment[];
}

// Weight of the newest latency sample: recent enough to follow a slowing upstream, smooth enough
// that one slow answer does not move all traffic.
const LATENCY_SMOOTHING = 0.3;
const MINUTE_MS = 60_000;

/** What the call asks of a deployment, for the checks before the pick. */
export interface CallDemand {
  /** The prompt's tokens (estimated), when the context-window check or usage-based routing needs them. */
  promptTokens?: number;
}

/** A deployment's calls and tokens in the current minute (usage-based routing). */
interface MinuteUsage {
  minute: number;
  requests: number;
  tokens: number;
}

/**
 * Alias → deployments, and the pick among them by `routing_strategy`: `simple-shuffle` (random,
 * weighted by rpm, then tpm), `least-busy` (fewest calls in flight in this replica),
 * `usage-based-routing-v2` (fewest tokens this minute among deployments still under their rpm and
 * tpm), `latency-based-routing` (lowest smoothed time to the upstream's first byte; deployments not
 * yet measured are tried first) or `cost-based-routing` (lowest price per token; unpriced ones
 * last). Deployments cooling down, at their `max_parallel_requests`, or (with
 * `enable_pre_call_checks`) with a context window smaller than the prompt are skipped; a retry
 * prefers a deployment not tried yet. `model_group_alias` names resolve to their group first.
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
  private readonly usage = new Map<string, MinuteUsage>();
  private readonly usageListeners: ((deploymentId: string, minute: number, requests: number, tokens: number) => void)[] = [];
  private readonly groupAliases: Readonly<Record<string, ModelGroupAlias>>;
  private readonly preCallChecks: boolean;
  private readonly weighsPrompts: boolean;

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    @Optional() private readonly cooldowns?: DeploymentCooldowns,
    @Optional() private readonly prices?: ModelPrices,
    @Optional() private readonly clock?: GatewayClock,
  ) {
    this.strategy = settings.router.routingStrategy;
    this.groupAliases = settings.router.modelGroupAliases ?? {};
    this.preCallChecks = settings.router.preCallChecks ?? false;
    const weighsUsage = this.preCallChecks || this.strategy === 'usage-based-routing-v2';
    this.weighsPrompts = weighsUsage && settings.deployments.some((d) => d.tpm !== undefined || (this.preCallChecks && contextWindowOf(d) !== undefined));
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
    for (const [name, { group, hidden }] of Object.entries(this.groupAliases)) if (!hidden && this.hasGroup(group)) names.add(name);
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
    return this.hasGroup(this.resolved(alias));
  }

  /** The model group a `model_group_alias` name calls; undefined for other names. */
  groupAliasTarget(alias: string): string | undefined {
    return this.groupAliases[alias]?.group;
  }

  /** Why an alias whose deployments name only providers this gateway does not serve cannot be called. */
  unservedReason(alias: string): string | undefined {
    return this.has(alias) ? undefined : this.unserved[this.resolved(alias)];
  }

  /** The configured model_name a name is served by: itself, the group its model_group_alias names, or the wildcard alias that matches it. */
  groupName(alias: string): string {
    const name = this.resolved(alias);
    return this.byAlias.has(name) ? name : (this.wildcardFor(name)?.alias ?? name);
  }

  private resolved(alias: string): string {
    return this.groupAliases[alias]?.group ?? alias;
  }

  private hasGroup(name: string): boolean {
    return this.byAlias.has(name) || this.wildcardFor(name) !== undefined;
  }

  deployment(id: string): GatewayDeployment | undefined {
    return this.byId.get(id);
  }

  /** Every deployment of a configured alias (as aliases() names it, wildcard ones as written), cooling or not. */
  deploymentsOf(alias: string): readonly GatewayDeployment[] {
    return this.byAlias.get(alias) ?? this.wildcards.find((group) => group.alias === alias)?.deployments ?? [];
  }

  /** How many deployments the alias has (cooling or not). */
  size(alias: string): number {
    return this.group(this.resolved(alias))?.length ?? 0;
  }

  /**
   * A deployment of the alias that is not cooling down, preferring those not in `tried`;
   * undefined when the alias is unknown or every deployment cools down.
   */
  pick(alias: string, tried: ReadonlySet<string> = new Set(), random: () => number = Math.random, demand: CallDemand = {}): GatewayDeployment | undefined {
    const name = this.resolved(alias);
    const picked = this.pickConfigured(name, tried, random, demand);
    return picked?.wildcard ? this.servedBy(picked, name) : picked;
  }

  private pickConfigured(alias: string, tried: ReadonlySet<string>, random: () => number, demand: CallDemand): GatewayDeployment | undefined {
    const group = this.group(alias);
    if (!group || group.length === 0) return undefined;
    const available = group.filter((d) => this.canTake(d, demand));
    const fresh = available.filter((d) => !tried.has(d.id));
    const candidates = fresh.length > 0 ? fresh : available;
    if (candidates.length <= 1) return candidates[0];
    switch (this.strategy) {
      case 'least-busy':
        return lowest(candidates, (d) => this.inFlight.get(d.id) ?? 0, random);
      case 'usage-based-routing-v2':
        return lowest(candidates, (d) => this.minuteUsage(d.id).tokens, random);
      case 'latency-based-routing':
        return lowest(candidates, (d) => this.latencyMs.get(d.id) ?? -1, random);
      case 'cost-based-routing':
        return lowest(candidates, (d) => this.prices?.pricePerToken(d) ?? Number.POSITIVE_INFINITY, random);
      default:
        return weightedPick(candidates, random);
    }
  }

  /**
   * Whether the deployment can take the call now: not cooling down, below its max_parallel_requests,
   * under its rpm and tpm this minute (usage-based routing, or the pre-call checks), and with a
   * context window the prompt fits (the pre-call checks).
   */
  private canTake(deployment: GatewayDeployment, demand: CallDemand): boolean {
    if (this.cooldowns?.isCooling(deployment.id)) return false;
    if (deployment.maxParallelRequests !== undefined && (this.inFlight.get(deployment.id) ?? 0) >= deployment.maxParallelRequests) return false;
    if (this.strategy === 'usage-based-routing-v2' || this.preCallChecks) {
      const used = this.minuteUsage(deployment.id);
      if (deployment.rpm !== undefined && used.requests + 1 > deployment.rpm) return false;
      if (deployment.tpm !== undefined && used.tokens + (demand.promptTokens ?? 0) > deployment.tpm) return false;
    }
    return !this.preCallChecks || !this.tooLong(deployment, demand);
  }

  private tooLong(deployment: GatewayDeployment, demand: CallDemand): boolean {
    const window = contextWindowOf(deployment);
    return window !== undefined && demand.promptTokens !== undefined && demand.promptTokens > window;
  }

  /**
   * With the pre-call checks: the largest context window of the alias's deployments when the
   * prompt fits none of them (the call is a context-window error, for context_window_fallbacks).
   */
  exceededWindow(alias: string, demand: CallDemand): number | undefined {
    if (!this.preCallChecks || demand.promptTokens === undefined) return undefined;
    const group = this.group(this.resolved(alias)) ?? [];
    if (group.length === 0 || !group.every((d) => this.tooLong(d, demand))) return undefined;
    return Math.max(...group.map((d) => contextWindowOf(d) ?? 0));
  }

  /** Whether a pick needs the prompt's token count: some deployment has a tpm (usage-based routing, the pre-call checks) or, with the pre-call checks, a context window. */
  get needsPromptTokens(): boolean {
    return this.weighsPrompts;
  }

  /** Until the first deployment of the alias is available again (ms), for Retry-After: its cooldown, or the next minute when it is at its rpm/tpm. */
  soonestAvailableMs(alias: string): number {
    const group = this.group(this.resolved(alias)) ?? [];
    if (group.length === 0) return 0;
    const nextMinuteMs = MINUTE_MS - (this.now() % MINUTE_MS);
    return Math.min(
      ...group.map((d) => {
        const cooling = this.cooldowns?.remainingMs(d.id) ?? 0;
        const used = this.minuteUsage(d.id);
        const limited = (d.rpm !== undefined && used.requests >= d.rpm) || (d.tpm !== undefined && used.tokens >= d.tpm);
        return Math.max(cooling, limited && (this.strategy === 'usage-based-routing-v2' || this.preCallChecks) ? nextMinuteMs : 0);
      }),
    );
  }

  /** A call to the deployment started; `finished` must be called once it ended, however it ended. */
  started(deploymentId: string): void {
    this.inFlight.set(deploymentId, (this.inFlight.get(deploymentId) ?? 0) + 1);
    const usage = this.minuteUsage(deploymentId);
    usage.requests++;
    for (const listener of this.usageListeners) listener(deploymentId, usage.minute, 1, 0);
  }

  /** Tokens a finished call used on the deployment (prompt and completion), for usage-based routing. */
  usedTokens(deploymentId: string, tokens: number): void {
    if (tokens <= 0) return;
    const usage = this.minuteUsage(deploymentId);
    usage.tokens += tokens;
    for (const listener of this.usageListeners) listener(deploymentId, usage.minute, 0, tokens);
  }

  /** Whether routing weighs each deployment's calls and tokens of the minute (usage-based routing, the pre-call rpm/tpm checks). */
  get tracksUsage(): boolean {
    return this.preCallChecks || this.strategy === 'usage-based-routing-v2';
  }

  /** Told of each call started (requests) and each call's tokens, by minute (epoch minutes): the shared state adds them up across replicas. */
  onUsage(listener: (deploymentId: string, minute: number, requests: number, tokens: number) => void): void {
    this.usageListeners.push(listener);
  }

  /** Every replica's calls and tokens of the minute on the deployment, as the shared state counted them; this replica's own count stands when it is higher. */
  sharedUsage(deploymentId: string, minute: number, requests: number, tokens: number): void {
    const usage = this.minuteUsage(deploymentId);
    if (usage.minute !== minute) return;
    usage.requests = Math.max(usage.requests, requests);
    usage.tokens = Math.max(usage.tokens, tokens);
  }

  /** The configured deployments' ids. */
  deploymentIds(): string[] {
    return [...this.byId.keys()];
  }

  /** The current minute, as usage is counted (epoch minutes). */
  currentMinute(): number {
    return Math.floor(this.now() / MINUTE_MS);
  }

  private minuteUsage(deploymentId: string): MinuteUsage {
    const minute = Math.floor(this.now() / MINUTE_MS);
    let usage = this.usage.get(deploymentId);
    if (!usage || usage.minute !== minute) this.usage.set(deploymentId, (usage = { minute, requests: 0, tokens: 0 }));
    return usage;
  }

  private now(): number {
    return this.clock ? this.clock.now() : Date.now();
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

/** `model_info.max_input_tokens` (LiteLLM's field for the context window the pre-call checks use). */
function contextWindowOf(deployment: GatewayDeployment): number | undefined {
  const value = deployment.modelInfo['max_input_tokens'];
  return typeof value === 'number' && value > 0 ? value : undefined;
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
