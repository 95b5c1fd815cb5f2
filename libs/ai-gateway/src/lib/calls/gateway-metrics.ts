import { Injectable } from '@nestjs/common';
import { CounterSeries, HistogramSeries, MetricsRegistry, SeriesCounter, SeriesHistogram } from '@arbor/observability';
import { GatewayDeployment } from '../config/gateway-config';
import { DeploymentCooldowns } from '../deployment-cooldowns';
import { DeploymentRouter } from '../deployment-router';
import { CallUsage } from './usage';

const BY_DEPLOYMENT = ['alias', 'deployment', 'provider'] as const;

/** What one finished call (also a failed one: `deployment` is the last tried, if any) records. */
export interface CallOutcome {
  alias: string;
  deployment: GatewayDeployment | undefined;
  status: number;
  errorCode?: string | null;
  seconds: number;
  firstTokenSeconds?: number;
  usage?: CallUsage;
  cost: number;
  retries: number;
  fallbacks: number;
  requestedAlias: string;
}
type DeploymentLabel = (typeof BY_DEPLOYMENT)[number];
type DeploymentLabels = Record<DeploymentLabel, string>;

/** The series of one (alias, deployment): resolved on its first call, then recorded without hashing labels. */
interface DeploymentSeries {
  labels: DeploymentLabels;
  duration: HistogramSeries;
  firstToken: HistogramSeries;
  promptTokens: CounterSeries;
  completionTokens: CounterSeries;
  cost: CounterSeries;
  requestsByStatus: Map<number, CounterSeries>;
  errorsByCode: Map<string, CounterSeries>;
}

/**
 * The gateway's Prometheus series, by alias, deployment and provider: what an operator of a
 * LiteLLM proxy watches (requests, latency, time to first token, tokens, cost, errors, retries,
 * fallbacks, cooldowns). Labels come from the configuration, never from request input, so the
 * series stay bounded, and so does the cache of their handles.
 */
@Injectable()
export class GatewayMetrics {
  private readonly requests: SeriesCounter<DeploymentLabel | 'status'>;
  private readonly duration: SeriesHistogram<DeploymentLabel>;
  private readonly firstToken: SeriesHistogram<DeploymentLabel>;
  private readonly tokens: SeriesCounter<DeploymentLabel | 'kind'>;
  private readonly cost: SeriesCounter<DeploymentLabel>;
  private readonly errors: SeriesCounter<DeploymentLabel | 'code'>;
  private readonly retries: SeriesCounter<'alias'>;
  private readonly fallbacks: SeriesCounter<'alias'>;
  private readonly cooldowns: SeriesCounter<DeploymentLabel>;
  /** By alias, then by deployment (undefined when the call failed before one was tried). */
  private readonly seriesByAlias = new Map<string, Map<GatewayDeployment | undefined, DeploymentSeries>>();
  private readonly retriesByAlias = new Map<string, CounterSeries>();
  private readonly fallbacksByAlias = new Map<string, CounterSeries>();

  constructor(registry: MetricsRegistry, cooldowns: DeploymentCooldowns, router: DeploymentRouter) {
    const registers = [registry];
    const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
    this.requests = new SeriesCounter({
      name: 'arbor_aigw_requests_total',
      help: 'OpenAI-format calls answered, by outcome status.',
      labelNames: [...BY_DEPLOYMENT, 'status'],
      registers,
    });
    this.duration = new SeriesHistogram({
      name: 'arbor_aigw_request_duration_seconds',
      help: 'Whole call, first byte in to last byte out.',
      labelNames: BY_DEPLOYMENT,
      buckets: seconds,
      registers,
    });
    this.firstToken = new SeriesHistogram({
      name: 'arbor_aigw_time_to_first_token_seconds',
      help: 'Streamed calls: until the first chunk reached the client.',
      labelNames: BY_DEPLOYMENT,
      buckets: seconds,
      registers,
    });
    this.tokens = new SeriesCounter({ name: 'arbor_aigw_tokens_total', help: 'Tokens the upstreams reported.', labelNames: [...BY_DEPLOYMENT, 'kind'], registers });
    this.cost = new SeriesCounter({ name: 'arbor_aigw_cost_usd_total', help: 'Spend at the configured prices, USD.', labelNames: BY_DEPLOYMENT, registers });
    this.errors = new SeriesCounter({ name: 'arbor_aigw_errors_total', help: 'Calls that failed, by OpenAI-format code.', labelNames: [...BY_DEPLOYMENT, 'code'], registers });
    this.retries = new SeriesCounter({ name: 'arbor_aigw_retries_total', help: 'Retries within an alias.', labelNames: ['alias'], registers });
    this.fallbacks = new SeriesCounter({ name: 'arbor_aigw_fallbacks_total', help: 'Moves to a fallback alias.', labelNames: ['alias'], registers });
    this.cooldowns = new SeriesCounter({ name: 'arbor_aigw_cooldowns_total', help: 'Times a deployment started cooling down.', labelNames: BY_DEPLOYMENT, registers });
    cooldowns.onCooldown((id) => {
      const deployment = router.deployment(id);
      // Rare: resolved each time rather than cached.
      if (deployment) this.cooldowns.series(labels(deployment.alias, deployment)).inc();
    });
  }

  /** One finished call (also a failed one: `deployment` is the last tried, if any). */
  call(outcome: CallOutcome): void {
    const series = this.deploymentSeries(outcome.alias, outcome.deployment);
    cached(series.requestsByStatus, outcome.status, () => this.requests.series({ ...series.labels, status: String(outcome.status) })).inc();
    series.duration.observe(outcome.seconds);
    if (outcome.firstTokenSeconds !== undefined) series.firstToken.observe(outcome.firstTokenSeconds);
    if (outcome.usage) {
      series.promptTokens.inc(outcome.usage.promptTokens);
      series.completionTokens.inc(outcome.usage.completionTokens);
    }
    if (outcome.cost > 0) series.cost.inc(outcome.cost);
    if (outcome.status >= 400) {
      const code = outcome.errorCode ?? String(outcome.status);
      cached(series.errorsByCode, code, () => this.errors.series({ ...series.labels, code })).inc();
    }
    if (outcome.retries > 0) cached(this.retriesByAlias, outcome.requestedAlias, () => this.retries.series({ alias: outcome.requestedAlias })).inc(outcome.retries);
    if (outcome.fallbacks > 0) cached(this.fallbacksByAlias, outcome.requestedAlias, () => this.fallbacks.series({ alias: outcome.requestedAlias })).inc(outcome.fallbacks);
  }

  private deploymentSeries(alias: string, deployment: GatewayDeployment | undefined): DeploymentSeries {
    let byDeployment = this.seriesByAlias.get(alias);
    if (!byDeployment) this.seriesByAlias.set(alias, (byDeployment = new Map()));
    return cached(byDeployment, deployment, () => {
      const by = labels(alias, deployment);
      return {
        labels: by,
        duration: this.duration.series(by),
        firstToken: this.firstToken.series(by),
        promptTokens: this.tokens.series({ ...by, kind: 'prompt' }),
        completionTokens: this.tokens.series({ ...by, kind: 'completion' }),
        cost: this.cost.series(by),
        requestsByStatus: new Map(),
        errorsByCode: new Map(),
      };
    });
  }
}

/** `map`'s entry for `key`, created by `create` the first time. */
function cached<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = create()));
  return value;
}

function labels(alias: string, deployment: GatewayDeployment | undefined): DeploymentLabels {
  return { alias, deployment: deployment?.id ?? '', provider: deployment?.provider ?? '' };
}
