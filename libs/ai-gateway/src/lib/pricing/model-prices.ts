import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { ConfigError } from '@arbor/config';
import { providerAdapterFor } from '@arbor/provider-adapters';
import { CallUsage } from '../calls/usage';
import { GatewayDeployment } from '../config/gateway-config';
import { withoutDateSuffix } from '../config/known-models';
import { BUILT_IN_PRICES } from './built-in-prices';
import { costOf, ModelPrice, priceFromRecord } from './model-price';
import { usdNumber, usdTimes } from './usd';

export type PriceMap = ReadonlyMap<string, Partial<ModelPrice>>;

/**
 * The price of each deployment, settled at start: `model_info` prices win over the AIGW_PRICE_MAP
 * file (LiteLLM's model_prices_and_context_window.json format), which wins over the built-in list.
 * Models are looked up by `model_info.base_model` (Azure deployments have names of their own) or
 * the provider model, as `<provider>/<model>` then `<model>`, then without a date suffix. A
 * deployment without any price costs 0 and is named once in the log, so spend is never silently
 * wrong.
 */
export class ModelPrices implements OnApplicationBootstrap {
  private readonly prices = new Map<string, ModelPrice | undefined>();
  /** Wildcard deployments serve many models: each model's price, looked up on its first call (known models only are kept). */
  private readonly wildcardPrices = new Map<string, ModelPrice>();

  /** Throws ConfigError naming every bad price; built before the application, so it stops the start. */
  constructor(
    private readonly deployments: readonly GatewayDeployment[],
    private readonly priceMap: PriceMap = new Map(),
  ) {
    const problems: string[] = [];
    for (const deployment of deployments) {
      const fromInfo = priceFromRecord(deployment.modelInfo, `model_info of ${deployment.id}`, problems);
      if (deployment.wildcard) continue;
      this.prices.set(deployment.id, this.priceOf(deployment, fromInfo));
    }
    if (problems.length > 0) throw new ConfigError(problems.map((message) => ({ variable: 'AIGW_CONFIG', message })));
  }

  private priceOf(deployment: GatewayDeployment, fromInfo: Partial<ModelPrice> | undefined): ModelPrice | undefined {
    const name = typeof deployment.modelInfo['base_model'] === 'string' ? deployment.modelInfo['base_model'] : deployment.model;
    const layers = [lookup(BUILT_IN_PRICES, deployment.provider, name), lookup(this.priceMap, deployment.provider, name), fromInfo];
    const merged = Object.assign({}, ...layers.filter(Boolean)) as Partial<ModelPrice>;
    return Object.keys(merged).length === 0 ? undefined : { inputCostPerToken: 0, outputCostPerToken: 0, ...merged };
  }

  onApplicationBootstrap(): void {
    const unpriced = this.deployments.filter((d) => !d.wildcard && !this.prices.get(d.id)).map((d) => `${d.id} (${d.provider}/${d.model})`);
    if (unpriced.length > 0) {
      new Logger('ai-gateway').warn(`no price known for ${unpriced.join(', ')}: their calls cost 0; set model_info input_cost_per_token/output_cost_per_token or AIGW_PRICE_MAP`);
    }
  }

  /** USD for a call's usage on a deployment. */
  cost(deployment: GatewayDeployment, usage: CallUsage): number {
    const price = deployment.wildcard ? this.wildcardPrice(deployment) : this.prices.get(deployment.id);
    return price ? costOf(usage, price) : 0;
  }

  /** The deployment's list price (USD per token); undefined when none is known (a wildcard's: once its model is known). */
  listPrice(deployment: GatewayDeployment): ModelPrice | undefined {
    return deployment.wildcard ? this.wildcardPrice(deployment) : this.prices.get(deployment.id);
  }

  /** Input plus output price per token (cost-based routing's measure); undefined when the deployment has no price. */
  pricePerToken(deployment: GatewayDeployment): number | undefined {
    const price = deployment.wildcard ? this.wildcardPrice(deployment) : this.prices.get(deployment.id);
    return price ? price.inputCostPerToken + price.outputCostPerToken : undefined;
  }

  private wildcardPrice(deployment: GatewayDeployment): ModelPrice | undefined {
    const key = `${deployment.id}\u0000${deployment.provider}/${deployment.model}`;
    const cached = this.wildcardPrices.get(key);
    if (cached) return cached;
    const price = this.priceOf(deployment, priceFromRecord(deployment.modelInfo, `model_info of ${deployment.id}`, []));
    if (price) this.wildcardPrices.set(key, price);
    return price;
  }

  /**
   * USD for usage of a provider's model named as the vendor names it (a pass-through call): at the
   * price of a deployment of that model when there is one, else at the price map's or the built-in price.
   */
  costOfModel(provider: string, model: string, usage: CallUsage): number {
    const deployment = this.deployments.find((candidate) => candidate.provider === provider && candidate.model === model);
    if (deployment) return this.cost(deployment, usage);
    const merged = Object.assign({}, lookup(BUILT_IN_PRICES, provider, model), lookup(this.priceMap, provider, model)) as Partial<ModelPrice>;
    return Object.keys(merged).length === 0 ? 0 : costOf(usage, { inputCostPerToken: 0, outputCostPerToken: 0, ...merged });
  }

  /**
   * USD for a batch's summed usage: the `*_batches` prices where the price data has them, else
   * the standard price less the provider's published batch discount.
   */
  batchCost(deployment: GatewayDeployment, usage: CallUsage): number {
    const price = this.prices.get(deployment.id);
    if (!price) return 0;
    if (price.inputCostPerTokenBatches !== undefined || price.outputCostPerTokenBatches !== undefined) {
      return costOf(usage, {
        inputCostPerToken: price.inputCostPerTokenBatches ?? price.inputCostPerToken,
        outputCostPerToken: price.outputCostPerTokenBatches ?? price.outputCostPerToken,
      });
    }
    return usdNumber(usdTimes(costOf(usage, price), providerAdapterFor(deployment.provider)?.batchPriceFactor ?? 1));
  }
}

function lookup(prices: PriceMap, provider: string, model: string): Partial<ModelPrice> | undefined {
  const bare = withoutDateSuffix(model);
  return prices.get(`${provider}/${model}`) ?? prices.get(model) ?? prices.get(`${provider}/${bare}`) ?? prices.get(bare);
}

/** Reads a LiteLLM price map; every bad entry is a start-up problem naming AIGW_PRICE_MAP. */
export function loadPriceMap(path: string): PriceMap {
  return readPriceMapFile(path).prices;
}

/** The price map's prices, and each model's `litellm_provider` (what LiteLLM resolves an unprefixed model name by). */
export function readPriceMapFile(path: string): { prices: PriceMap; providers: ReadonlyMap<string, string> } {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError([{ variable: 'AIGW_PRICE_MAP', message: `cannot read ${path} as JSON: ${(error as Error).message.split('\n')[0]}` }]);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ConfigError([{ variable: 'AIGW_PRICE_MAP', message: `${path}: must be a JSON object of model name → prices` }]);
  }
  const problems: string[] = [];
  const prices = new Map<string, Partial<ModelPrice>>();
  const providers = new Map<string, string>();
  for (const [model, entry] of Object.entries(document as Record<string, unknown>)) {
    if (model === 'sample_spec') continue; // LiteLLM's file documents its own fields in this entry
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${model}: must be an object`);
      continue;
    }
    const price = priceFromRecord(entry as Record<string, unknown>, model, problems);
    if (price) prices.set(model, price);
    const provider = (entry as Record<string, unknown>)['litellm_provider'];
    if (typeof provider === 'string') providers.set(model, provider);
  }
  if (problems.length > 0) throw new ConfigError(problems.map((message) => ({ variable: 'AIGW_PRICE_MAP', message })));
  return { prices, providers };
}
