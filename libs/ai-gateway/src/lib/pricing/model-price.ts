import { CallUsage } from '../calls/usage';
import { usdNumber, usdTimes } from './usd';

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
  /** USD per image generated, whatever its size. */
  costPerImage?: number;
  /** USD per image by `<quality>/<size>`, `<size>`, `<quality>` or `default` (the built-in list prices). */
  imageCostByTier?: Readonly<Record<string, number>>;
  /** USD per second of audio transcribed. */
  inputCostPerSecond?: number;
  /** USD per character of text spoken. */
  inputCostPerCharacter?: number;
  /** Audio prompt tokens (realtime); the input price when absent. */
  inputCostPerAudioToken?: number;
  /** Audio completion tokens (realtime); the output price when absent. */
  outputCostPerAudioToken?: number;
  /** A rerank search unit (Cohere: one query over up to 100 documents). */
  inputCostPerQuery?: number;
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
  costPerImage: 'output_cost_per_image',
  inputCostPerSecond: 'input_cost_per_second',
  inputCostPerCharacter: 'input_cost_per_character',
  inputCostPerAudioToken: 'input_cost_per_audio_token',
  outputCostPerAudioToken: 'output_cost_per_audio_token',
  inputCostPerQuery: 'input_cost_per_query',
  inputCostPerTokenBatches: 'input_cost_per_token_batches',
  outputCostPerTokenBatches: 'output_cost_per_token_batches',
} as const;

/** The USD cost of one call's usage at a price, added exactly (see usd.ts). */
export function costOf(usage: CallUsage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  const cacheWrites = Math.min(usage.cacheWriteTokens ?? 0, usage.promptTokens - cached);
  const oneHourWrites = Math.min(usage.oneHourCacheWriteTokens ?? 0, cacheWrites);
  const reasoning = Math.min(usage.reasoningTokens, usage.completionTokens);
  // Audio tokens (realtime) are the uncached prompt's and the non-reasoning answer's.
  const audioIn = Math.min(usage.audioPromptTokens ?? 0, usage.promptTokens - cached - cacheWrites);
  const audioOut = Math.min(usage.audioCompletionTokens ?? 0, usage.completionTokens - reasoning);
  const writePrice = price.cacheCreationCostPerToken ?? price.inputCostPerToken;
  return usdNumber(
    usdTimes(price.inputCostPerToken, usage.promptTokens - cached - cacheWrites - audioIn) +
      usdTimes(price.inputCostPerAudioToken ?? price.inputCostPerToken, audioIn) +
      usdTimes(price.cacheReadCostPerToken ?? price.inputCostPerToken, cached) +
      usdTimes(writePrice, cacheWrites - oneHourWrites) +
      usdTimes(price.oneHourCacheCreationCostPerToken ?? writePrice, oneHourWrites) +
      usdTimes(price.outputCostPerToken, usage.completionTokens - reasoning - audioOut) +
      usdTimes(price.outputCostPerAudioToken ?? price.outputCostPerToken, audioOut) +
      usdTimes(price.reasoningCostPerToken ?? price.outputCostPerToken, reasoning) +
      (usage.images ? usdTimes(imagePrice(price, usage.images), usage.images.count) : 0n) +
      usdTimes(price.inputCostPerSecond ?? 0, usage.audioSeconds ?? 0) +
      usdTimes(price.inputCostPerCharacter ?? 0, usage.characters ?? 0) +
      usdTimes(price.inputCostPerQuery ?? 0, usage.searchUnits ?? 0),
  );
}

/** One image's price: a flat per-image price wins; else the most specific tier of the list price. */
function imagePrice(price: ModelPrice, image: { size?: string; quality?: string }): number {
  if (price.costPerImage !== undefined) return price.costPerImage;
  const tiers = price.imageCostByTier;
  if (!tiers) return 0;
  const { size, quality } = image;
  const names = [quality && size ? `${quality}/${size}` : undefined, size, quality, 'default'];
  for (const name of names) if (name !== undefined && tiers[name] !== undefined) return tiers[name];
  return 0;
}

/**
 * The price fields of a LiteLLM-style record (`model_info` or a price map entry); undefined when it
 * names no price, a list of problems when a price field is not a non-negative number.
 */
export function priceFromRecord(record: Record<string, unknown>, at: string, problems: string[]): Partial<ModelPrice> | undefined {
  const result: Partial<ModelPrice> = {};
  for (const [field, name] of Object.entries(PRICE_FIELDS) as [keyof typeof PRICE_FIELDS, string][]) {
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
