import { CallUsage } from '../calls/usage';

/** USD per token, the unit LiteLLM's price map and `model_info` use. */
export interface ModelPrice {
  inputCostPerToken: number;
  outputCostPerToken: number;
  /** Prompt tokens read from the provider's cache; the input price when absent. */
  cacheReadCostPerToken?: number;
  /** Prompt tokens written to the provider's cache (Anthropic charges more for them); the input price when absent. */
  cacheCreationCostPerToken?: number;
  /** Prompt tokens written to Anthropic's one-hour cache; the cache write price when absent. */
  oneHourCacheCreationCostPerToken?: number;
  /** Reasoning tokens (part of the completion tokens); the output price when absent. */
  reasoningCostPerToken?: number;
  /** Batch API prices (LiteLLM's `*_batches` fields); without them the provider's batch discount applies. */
  inputCostPerTokenBatches?: number;
  outputCostPerTokenBatches?: number;
}

// LiteLLM's field names, in model_info and in the price map file.
export const PRICE_FIELDS = {
  inputCostPerToken: 'input_cost_per_token',
  outputCostPerToken: 'output_cost_per_token',
  cacheReadCostPerToken: 'cache_read_input_token_cost',
  cacheCreationCostPerToken: 'cache_creation_input_token_cost',
  oneHourCacheCreationCostPerToken: 'cache_creation_input_token_cost_above_1hr',
  reasoningCostPerToken: 'output_cost_per_reasoning_token',
  inputCostPerTokenBatches: 'input_cost_per_token_batches',
  outputCostPerTokenBatches: 'output_cost_per_token_batches',
} as const;

/** The USD cost of one call's usage at a price. */
export function costOf(usage: CallUsage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  const cacheWrites = Math.min(usage.cacheWriteTokens ?? 0, usage.promptTokens - cached);
  const oneHourWrites = Math.min(usage.oneHourCacheWriteTokens ?? 0, cacheWrites);
  const reasoning = Math.min(usage.reasoningTokens, usage.completionTokens);
  const writePrice = price.cacheCreationCostPerToken ?? price.inputCostPerToken;
  return (
    (usage.promptTokens - cached - cacheWrites) * price.inputCostPerToken +
    cached * (price.cacheReadCostPerToken ?? price.inputCostPerToken) +
    (cacheWrites - oneHourWrites) * writePrice +
    oneHourWrites * (price.oneHourCacheCreationCostPerToken ?? writePrice) +
    (usage.completionTokens - reasoning) * price.outputCostPerToken +
    reasoning * (price.reasoningCostPerToken ?? price.outputCostPerToken)
  );
}

/**
 * The price fields of a LiteLLM-style record (`model_info` or a price map entry); undefined when it
 * names no price, a list of problems when a price field is not a non-negative number.
 */
export function priceFromRecord(record: Record<string, unknown>, at: string, problems: string[]): Partial<ModelPrice> | undefined {
  const result: Partial<ModelPrice> = {};
  for (const [field, name] of Object.entries(PRICE_FIELDS) as [keyof ModelPrice, string][]) {
    const value = record[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      problems.push(`${at}.${name}: must be a non-negative number (USD per token)`);
      continue;
    }
    result[field] = value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}
