import { Inject, Injectable } from '@nestjs/common';
import { ProviderError } from '@arbor/provider-adapters';
import { FailureKind, GatewayDeployment, PerFailureKind } from './config/gateway-config';
import { DeploymentCooldowns, retryAfterSeconds } from './deployment-cooldowns';
import { CallDemand, DeploymentRouter } from './deployment-router';
import { GatewayClock } from './gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';

/** Where a call got to; the route turns it into x-arbor-* headers, on success and on failure. */
export interface CallProgress {
  /** The alias tried last (the one that served, on success). */
  alias: string;
  /** The deployment tried last (the one that served, on success). */
  deployment?: GatewayDeployment;
  /** Attempts after the first within an alias, summed over every alias tried. */
  retries: number;
  /** Aliases tried after the requested one. */
  fallbacks: number;
}

/** 408, 409, 429, 5xx and connection failures (502) are worth another attempt; the caller's own mistakes are not. */
export function isRetryable(error: ProviderError): boolean {
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

/** OpenAI's (and every OpenAI-compatible server's) "the prompt is too long". */
export function isContextWindowError(error: ProviderError): boolean {
  return error.code === 'context_length_exceeded' || (error.status === 400 && /maximum context length|context window|too many tokens/i.test(error.message));
}

/** A failure that is the deployment's, not the request's: another alias may well succeed. */
function isDeploymentFailure(error: ProviderError): boolean {
  return isRetryable(error) || error.status === 401 || error.status === 403 || error.status === 404;
}

export const noDeploymentsAvailable = (alias: string, retryAfterMs: number) =>
  new ProviderError(
    429,
    'rate_limit_exceeded',
    `No deployments available for model "${alias}": every deployment is cooling down or at its limit. Try again in ${Math.ceil(retryAfterMs / 1000)} seconds.`,
    'no_deployments_available',
    null,
    { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  );

/** The prompt fits no deployment's context window (enable_pre_call_checks): a context-window error, so context_window_fallbacks apply. */
export const promptTooLong = (alias: string, promptTokens: number, window: number) =>
  new ProviderError(
    400,
    'invalid_request_error',
    `The prompt (about ${promptTokens} tokens) exceeds the context window of every deployment of model "${alias}" (at most ${window} tokens).`,
    'context_length_exceeded',
    'messages',
  );

/** LiteLLM's content policy violation, as providers word it (OpenAI's content_filter / content_policy_violation, Azure's ResponsibleAIPolicyViolation). */
export function isContentPolicyError(error: ProviderError): boolean {
  return (
    error.code === 'content_policy_violation' ||
    error.code === 'content_filter' ||
    (error.status === 400 && /content[ _-]?(policy|filter|management)|ResponsibleAIPolicyViolation/i.test(error.message))
  );
}

/** The kind of LiteLLM exception a failure is, as retry_policy and allowed_fails_policy name them; undefined for none of them (403, 404, …). */
export function failureKind(error: ProviderError): FailureKind | undefined {
  if (isContentPolicyError(error)) return 'ContentPolicyViolationError';
  if (error.status === 401) return 'AuthenticationError';
  if (error.status === 408 || error.status === 504) return 'TimeoutError';
  if (error.status === 429) return 'RateLimitError';
  if (error.status >= 500) return 'InternalServerError';
  if (error.status === 400) return 'BadRequestError';
  return undefined;
}

// An upstream's Retry-After longer than this is not waited for within a call (LiteLLM's bound).
const MAX_RETRY_WAIT_S = 60;
// A call's first attempt has tried nothing yet: one empty set for all of them.
const NOTHING_TRIED: ReadonlySet<string> = new Set();

/**
 * Retries and fallbacks of one call, as a plan the call pipeline walks: `next()` names the
 * deployment to try, `failed()` tells the plan how that went. Retries (`num_retries`) re-pick
 * within the alias, another deployment first, on retryable failures; when an alias is spent the
 * call moves to its `fallbacks` (or, for a context-length error, its `context_window_fallbacks`),
 * each with its own retries. A 400 that is not about the context window ends the call at once.
 * Every failure of a deployment is told to the cooldowns. The pipeline must try a deployment
 * before anything reaches the client: a stream is retried only until its first byte.
 */
export class RoutePlan {
  /** The requested alias and the fallbacks queued after it, each once (a handful: looked through, not hashed). */
  private readonly queue: string[];
  private index = -1;
  private alias: string | undefined;
  private attempts = 0;
  /** The deployments of the alias tried so far (made at its first attempt). */
  private tried: Set<string> | undefined;
  private aliasSpent = false;
  private aliasError: ProviderError | undefined;
  private lastError: ProviderError | undefined;
  /** Retries the alias may still reach: num_retries, or what retry_policy says for the last failure's kind. */
  private retryLimit = 0;
  /** How long to wait before the attempt `next()` just named (retry_after on an alias's only deployment). */
  private waitBeforeMs = 0;
  /** A deployment to try once more itself (its `max_retries`), and how often each was tried so. */
  private again: GatewayDeployment | undefined;
  private sameRetries: Map<string, number> | undefined;

  constructor(
    private readonly progress: CallProgress,
    private readonly settings: GatewaySettings,
    private readonly router: DeploymentRouter,
    private readonly cooldowns: DeploymentCooldowns,
    private readonly clock: GatewayClock,
    private readonly demand: CallDemand = {},
  ) {
    this.queue = [progress.alias];
  }

  /** Why the call failed, once `next()` has nothing more to try. */
  get error(): ProviderError {
    return this.lastError ?? new ProviderError(500, 'server_error', 'The gateway could not route the call.');
  }

  /** How long the pipeline waits before trying the deployment `next()` named (0: at once). */
  get waitMs(): number {
    return this.waitBeforeMs;
  }

  /** The deployment to try now (with the router's timeout when it has none of its own), or undefined when none is left. */
  next(): GatewayDeployment | undefined {
    const { timeoutMs } = this.settings.router;
    const wait = this.waitBeforeMs;
    this.waitBeforeMs = 0;
    const again = this.again;
    if (again) {
      this.again = undefined;
      this.progress.retries++;
      this.progress.deployment = again;
      return again.timeoutMs === undefined && timeoutMs !== undefined ? { ...again, timeoutMs } : again;
    }
    for (;;) {
      if (this.alias === undefined && !this.nextAlias()) return undefined;
      const alias = this.alias as string;
      if (!this.aliasSpent && this.attempts <= this.retryLimit) {
        const deployment = this.router.pick(alias, this.tried ?? NOTHING_TRIED, Math.random, this.demand);
        if (deployment) {
          if (this.attempts > 0) {
            this.progress.retries++;
            this.waitBeforeMs = wait;
          }
          this.attempts++;
          this.progress.deployment = deployment;
          (this.tried ??= new Set()).add(deployment.id);
          return deployment.timeoutMs === undefined && timeoutMs !== undefined ? { ...deployment, timeoutMs } : deployment;
        }
        const window = this.attempts === 0 ? this.router.exceededWindow(alias, this.demand) : undefined;
        if (window !== undefined) this.aliasError = promptTooLong(alias, this.demand.promptTokens ?? 0, window);
        // Every deployment cools down (perhaps after this call's own failures): the upstream's error says more.
        else this.aliasError ??= noDeploymentsAvailable(alias, this.router.soonestAvailableMs(alias));
      }
      this.leaveAlias();
    }
  }

  /** The deployment `next()` named failed with `error`. */
  failed(deployment: GatewayDeployment, error: ProviderError): void {
    this.aliasError = error;
    const alias = this.alias as string;
    const kind = failureKind(error);
    const policy = this.retryPolicyOf(alias);
    // retry_policy: a kind it names is retried that often, whatever num_retries and the status say.
    const policed = kind !== undefined && policy?.[kind] !== undefined;
    this.retryLimit = policed ? (policy?.[kind as FailureKind] ?? 0) : this.settings.router.numRetries;
    if (isContextWindowError(error) || (!policed && (isContentPolicyError(error) || !isDeploymentFailure(error)))) {
      this.aliasSpent = true;
      return;
    }
    const retried = this.sameRetries?.get(deployment.id) ?? 0;
    if (isRetryable(error) && retried < (deployment.maxRetries ?? 0)) {
      // LiteLLM's max_retries: the deployment's own client tries again before the router moves on.
      (this.sameRetries ??= new Map()).set(deployment.id, retried + 1);
      this.again = deployment;
      return;
    }
    const retryAfterS = error.status === 429 ? retryAfterSeconds(error.headers['retry-after'], this.clock.now()) : undefined;
    if (isDeploymentFailure(error)) {
      this.cooldowns.recordFailure(deployment.id, {
        countable: this.router.size(alias) > 1,
        ...(retryAfterS !== undefined ? { retryAfterS } : {}),
        ...(kind !== undefined ? { kind } : {}),
        error: { status: error.status, code: error.code ?? error.type, message: error.message },
      });
    }
    if (!policed && !isRetryable(error)) this.aliasSpent = true;
    // retry_after: LiteLLM waits before retrying when no other deployment can take the call.
    const { retryAfterS: pause } = this.settings.router;
    if (this.router.size(alias) <= 1) {
      const upstream = retryAfterSeconds(error.headers['retry-after'], this.clock.now());
      const seconds = Math.max(pause ?? 0, upstream !== undefined && upstream <= MAX_RETRY_WAIT_S && pause !== undefined ? upstream : 0);
      this.waitBeforeMs = seconds * 1000;
    }
  }

  private retryPolicyOf(alias: string): PerFailureKind | undefined {
    const { router } = this.settings;
    return router.groupRetryPolicies?.[alias] ?? router.groupRetryPolicies?.[this.router.groupName(alias)] ?? router.retryPolicy;
  }

  private nextAlias(): boolean {
    if (this.index + 1 >= this.queue.length) return false;
    this.index++;
    this.alias = this.queue[this.index] as string;
    this.progress.alias = this.alias;
    if (this.index > 0) this.progress.fallbacks++;
    this.attempts = 0;
    this.retryLimit = this.settings.router.numRetries;
    this.tried = undefined;
    this.aliasSpent = false;
    this.aliasError = undefined;
    return true;
  }

  /** The alias is spent: its error stands, and its fallbacks (for that error) are queued. */
  private leaveAlias(): void {
    const alias = this.alias as string;
    const error = this.aliasError;
    this.lastError = error;
    this.alias = undefined;
    if (!error) {
      this.index = this.queue.length;
      return;
    }
    const { router } = this.settings;
    // Fallbacks are written for the alias called, or for the group its model_group_alias names.
    const of = (lists: Record<string, string[]>[]) => {
      const own = fallbacksOf(alias, lists);
      const target = this.router.groupAliasTarget(alias);
      return own.length > 0 || target === undefined ? own : fallbacksOf(target, lists);
    };
    let next: string[] = [];
    if (isContextWindowError(error)) next = of(router.contextWindowFallbacks);
    else if (isContentPolicyError(error)) next = of(router.contentPolicyFallbacks);
    else if (isDeploymentFailure(error)) {
      next = of(router.fallbacks);
      // default_fallbacks: for aliases with no fallbacks of their own.
      if (next.length === 0) next = router.defaultFallbacks ?? [];
    }
    for (const target of next) {
      // max_fallbacks: the queue holds the called alias and at most that many others.
      if (this.queue.length > (router.maxFallbacks ?? Number.POSITIVE_INFINITY)) break;
      if (!this.queue.includes(target)) this.queue.push(target);
    }
  }
}

function fallbacksOf(alias: string, lists: Record<string, string[]>[]): string[] {
  return lists.flatMap((entry) => entry[alias] ?? []);
}

/** Makes the routing plan of each call from the router settings, the deployments and their cooldowns. */
@Injectable()
export class CallRouter {
  constructor(
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly router: DeploymentRouter,
    private readonly cooldowns: DeploymentCooldowns,
    private readonly clock: GatewayClock,
  ) {}

  plan(progress: CallProgress, demand: CallDemand = {}): RoutePlan {
    return new RoutePlan(progress, this.settings, this.router, this.cooldowns, this.clock, demand);
  }
}
