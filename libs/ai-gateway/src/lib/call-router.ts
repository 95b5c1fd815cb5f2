import { Inject, Injectable } from '@nestjs/common';
import { ProviderError } from '@arbor/provider-adapters';
import { GatewayDeployment } from './config/gateway-config';
import { DeploymentCooldowns, retryAfterSeconds } from './deployment-cooldowns';
import { DeploymentRouter } from './deployment-router';
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
    `No deployments available for model "${alias}": every deployment is cooling down. Try again in ${Math.ceil(retryAfterMs / 1000)} seconds.`,
    'no_deployments_available',
    null,
    { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  );

/**
 * Retries and fallbacks around one upstream attempt. Retries (`num_retries`) re-pick within the
 * alias, another deployment first, on retryable failures; when an alias is spent the call moves to
 * its `fallbacks` (or, for a context-length error, its `context_window_fallbacks`), each with its
 * own retries. A 400 that is not about the context window ends the call at once. Every failure of
 * a deployment is told to the cooldowns. `attempt` must resolve before anything reaches the
 * client: a stream is retried only until its first byte.
 */
@Injectable()
export class CallRouter {
  constructor(
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly router: DeploymentRouter,
    private readonly cooldowns: DeploymentCooldowns,
    private readonly clock: GatewayClock,
  ) {}

  async route<T>(progress: CallProgress, attempt: (deployment: GatewayDeployment) => Promise<T>, signal: AbortSignal): Promise<T> {
    const { numRetries, timeoutMs } = this.settings.router;
    const queue = [progress.alias];
    const visited = new Set(queue);
    let lastError: ProviderError | undefined;
    for (let index = 0; index < queue.length; index++) {
      const alias = queue[index] as string;
      progress.alias = alias;
      if (index > 0) progress.fallbacks++;
      const tried = new Set<string>();
      let aliasError: ProviderError | undefined;
      for (let attemptNo = 0; attemptNo <= numRetries; attemptNo++) {
        const deployment = this.router.pick(alias, tried);
        if (!deployment) {
          // Every deployment cools down (perhaps after this call's own failures): the upstream's error says more.
          aliasError ??= noDeploymentsAvailable(alias, this.router.soonestAvailableMs(alias));
          break;
        }
        if (attemptNo > 0) progress.retries++;
        progress.deployment = deployment;
        tried.add(deployment.id);
        try {
          return await attempt(deployment.timeoutMs === undefined && timeoutMs !== undefined ? { ...deployment, timeoutMs } : deployment);
        } catch (error) {
          if (signal.aborted || !(error instanceof ProviderError)) throw error;
          aliasError = error;
          if (isContextWindowError(error) || !isDeploymentFailure(error)) break;
          const retryAfterS = error.status === 429 ? retryAfterSeconds(error.headers['retry-after'], this.clock.now()) : undefined;
          this.cooldowns.recordFailure(deployment.id, { countable: this.router.size(alias) > 1, ...(retryAfterS !== undefined ? { retryAfterS } : {}) });
          if (!isRetryable(error)) break;
        }
      }
      lastError = aliasError;
      if (!aliasError) break;
      const next = isContextWindowError(aliasError)
        ? this.fallbacksOf(alias, this.settings.router.contextWindowFallbacks)
        : isDeploymentFailure(aliasError)
          ? this.fallbacksOf(alias, this.settings.router.fallbacks)
          : [];
      for (const target of next) {
        if (!visited.has(target)) {
          visited.add(target);
          queue.push(target);
        }
      }
    }
    throw lastError ?? new ProviderError(500, 'server_error', 'The gateway could not route the call.');
  }

  private fallbacksOf(alias: string, lists: Record<string, string[]>[]): string[] {
    return lists.flatMap((entry) => entry[alias] ?? []);
  }
}
