import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { DeploymentRouter } from '../deployment-router';
import { GatewayDeployment } from '../config/gateway-config';
import { ModelPrices } from '../pricing/model-prices';
import { usdNumber, usdTimes } from '../pricing/usd';

/** What a call may produce when it names no cap of its own and its deployment names none (`model_info.max_output_tokens`). */
export const DEFAULT_OUTPUT_TOKENS_RESERVED = 4096;
/** A request's bytes per prompt token, counted generously: JSON's quotes, keys and escapes are bytes the prompt's tokens do not have. */
const BYTES_PER_PROMPT_TOKEN = 3;
/** The request fields that cap an answer's tokens, by family: Chat Completions (both), Messages, Responses. */
const OUTPUT_CAPS = ['max_completion_tokens', 'max_tokens', 'max_output_tokens'] as const;

/** The dearest input and output price over an alias's deployments, and their largest answer. */
interface AliasWorstCase {
  inputPerToken: number;
  outputPerToken: number;
  outputTokens: number;
}

/**
 * What a call may cost at most before it goes out, so that budgets can hold it while it is in
 * flight (ARCHITECTURE.md: a call reserves its worst-case cost on every level, settles after):
 * the request's bytes as prompt tokens (a third of a token each, more than any text prompt has),
 * plus the answer's cap (`max_tokens`, `max_completion_tokens`, `max_output_tokens`; else the
 * deployment's `model_info.max_output_tokens`; else 4096) times `n`, at the dearest of the alias's
 * deployments. Calls priced otherwise (images, audio, search units) reserve what their tokens
 * would (nothing when a deployment has no token price): they settle at their exact cost. An alias's
 * prices are read once; a call pays a lookup and a few multiplications.
 */
@Injectable()
export class WorstCaseCost {
  private readonly aliases = new Map<string, AliasWorstCase | null>();

  constructor(
    private readonly deployments: DeploymentRouter,
    private readonly prices: ModelPrices,
  ) {}

  /** USD; 0 when nothing about the alias is priced. `body` as parsed (undefined for pass-throughs: only their size is known). */
  of(alias: string | undefined, body: Record<string, unknown> | undefined, headers: IncomingHttpHeaders | undefined): number {
    if (alias === undefined) return 0;
    const worst = this.aliasWorstCase(alias);
    if (!worst) return 0;
    const promptTokens = Math.ceil(Number(headers?.['content-length'] ?? 0) / BYTES_PER_PROMPT_TOKEN) || 0;
    const answers = typeof body?.['n'] === 'number' && Number.isInteger(body['n']) && body['n'] > 1 ? body['n'] : 1;
    const outputTokens = outputCap(body) ?? worst.outputTokens;
    return usdNumber(usdTimes(worst.inputPerToken, promptTokens) + usdTimes(worst.outputPerToken, outputTokens * answers));
  }

  private aliasWorstCase(alias: string): AliasWorstCase | null {
    let worst = this.aliases.get(alias);
    if (worst !== undefined) return worst;
    worst = null;
    for (const deployment of this.deployments.deploymentsOf(alias)) {
      const price = this.prices.listPrice(deployment);
      if (!price) continue;
      worst ??= { inputPerToken: 0, outputPerToken: 0, outputTokens: 0 };
      worst.inputPerToken = Math.max(worst.inputPerToken, price.inputCostPerToken);
      worst.outputPerToken = Math.max(worst.outputPerToken, price.outputCostPerToken, price.reasoningCostPerToken ?? 0);
      worst.outputTokens = Math.max(worst.outputTokens, maxOutputTokens(deployment));
    }
    if (worst && worst.inputPerToken === 0 && worst.outputPerToken === 0) worst = null;
    // A wildcard's prices are known per model once called: not remembered until then.
    if (worst || !this.deployments.deploymentsOf(alias).some((deployment) => deployment.wildcard)) this.aliases.set(alias, worst);
    return worst;
  }
}

function outputCap(body: Record<string, unknown> | undefined): number | undefined {
  if (!body) return undefined;
  for (const field of OUTPUT_CAPS) {
    const value = body[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  return undefined;
}

function maxOutputTokens(deployment: GatewayDeployment): number {
  const named = deployment.modelInfo['max_output_tokens'] ?? deployment.modelInfo['max_tokens'];
  return typeof named === 'number' && Number.isFinite(named) && named > 0 ? Math.ceil(named) : DEFAULT_OUTPUT_TOKENS_RESERVED;
}
