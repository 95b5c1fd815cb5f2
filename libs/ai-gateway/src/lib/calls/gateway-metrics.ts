import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from '@arbor/observability';
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
type DeploymentLabels = Record<(typeof BY_DEPLOYMENT)[number], string>;

/**
 * The gateway's Prometheus series, by alias, deployment and provider: what an operator of a
 * LiteLLM proxy watches (requests, latency, time to first token, tokens, cost, errors, retries,
 * fallbacks, cooldowns). Labels come from the configuration, never from request input, so the
 * series stay bounded.
 */
@Injectable()
export class GatewayMetrics {
  private readonly requests: Counter<'alias' | 'deployment' | 'provider' | 'status'>;
  private readonly duration: Histogram<(typeof BY_DEPLOYMENT)[number]>;
  private readonly firstToken: Histogram<(typeof BY_DEPLOYMENT)[number]>;
  private readonly tokens: Counter<'alias' | 'deployment' | 'provider' | 'kind'>;
  private readonly cost: Counter<(typeof BY_DEPLOYMENT)[number]>;
  private readonly errors: Counter<'alias' | 'deployment' | 'provider' | 'code'>;
  private readonly retries: Counter<'alias'>;
  private readonly fallbacks: Counter<'alias'>;
  private readonly cooldowns: Counter<(typeof BY_DEPLOYMENT)[number]>;

  constructor(registry: MetricsRegistry, cooldowns: DeploymentCooldowns, router: DeploymentRouter) {
    const registers = [registry];
    const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
    this.requests = new Counter({ name: 'arbor_aigw_requests_total', help: 'Family A calls answered, by outcome status.', labelNames: [...BY_DEPLOYMENT, 'status'], registers });
    this.duration = new Histogram({ name: 'arbor_aigw_request_duration_seconds', help: 'Whole call, first byte in to last byte out.', labelNames: BY_DEPLOYMENT, buckets: seconds, registers });
    this.firstToken = new Histogram({ name: 'arbor_aigw_time_to_first_token_seconds', help: 'Streamed calls: until the first chunk reached the client.', labelNames: BY_DEPLOYMENT, buckets: seconds, registers });
    this.tokens = new Counter({ name: 'arbor_aigw_tokens_total', help: 'Tokens the upstreams reported.', labelNames: [...BY_DEPLOYMENT, 'kind'], registers });
    this.cost = new Counter({ name: 'arbor_aigw_cost_usd_total', help: 'Spend at the configured prices, USD.', labelNames: BY_DEPLOYMENT, registers });
    this.errors = new Counter({ name: 'arbor_aigw_errors_total', help: 'Calls that failed, by family A code.', labelNames: [...BY_DEPLOYMENT, 'code'], registers });
    this.retries = new Counter({ name: 'arbor_aigw_retries_total', help: 'Retries within an alias.', labelNames: ['alias'], registers });
    this.fallbacks = new Counter({ name: 'arbor_aigw_fallbacks_total', help: 'Moves to a fallback alias.', labelNames: ['alias'], registers });
    this.cooldowns = new Counter({ name: 'arbor_aigw_cooldowns_total', help: 'Times a deployment started cooling down.', labelNames: BY_DEPLOYMENT, registers });
    cooldowns.onCooldown((id) => {
      const deployment = router.deployment(id);
      if (deployment) this.cooldowns.inc(labels(deployment.alias, deployment));
    });
  }

  /** One finished call (also a failed one: `deployment` is the last tried, if any). */
  call(outcome: CallOutcome): void {
    const by = labels(outcome.alias, outcome.deployment);
    this.requests.inc({ ...by, status: String(outcome.status) });
    this.duration.observe(by, outcome.seconds);
    if (outcome.firstTokenSeconds !== undefined) this.firstToken.observe(by, outcome.firstTokenSeconds);
    if (outcome.usage) {
      this.tokens.inc({ ...by, kind: 'prompt' }, outcome.usage.promptTokens);
      this.tokens.inc({ ...by, kind: 'completion' }, outcome.usage.completionTokens);
    }
    if (outcome.cost > 0) this.cost.inc(by, outcome.cost);
    if (outcome.status >= 400) this.errors.inc({ ...by, code: outcome.errorCode ?? String(outcome.status) });
    if (outcome.retries > 0) this.retries.inc({ alias: outcome.requestedAlias }, outcome.retries);
    if (outcome.fallbacks > 0) this.fallbacks.inc({ alias: outcome.requestedAlias }, outcome.fallbacks);
  }
}

function labels(alias: string, deployment: GatewayDeployment | undefined): DeploymentLabels {
  return { alias, deployment: deployment?.id ?? '', provider: deployment?.provider ?? '' };
}
