import { ModelPrice } from './model-price';

const M = 1e-6; // prices below are USD per million tokens, as providers publish them

function price(input: number, output: number, cacheRead?: number, cacheWrite?: number, oneHourCacheWrite?: number): ModelPrice {
  return {
    inputCostPerToken: input * M,
    outputCostPerToken: output * M,
    ...(cacheRead !== undefined ? { cacheReadCostPerToken: cacheRead * M } : {}),
    ...(cacheWrite !== undefined ? { cacheCreationCostPerToken: cacheWrite * M } : {}),
    ...(oneHourCacheWrite !== undefined ? { oneHourCacheCreationCostPerToken: oneHourCacheWrite * M } : {}),
  };
}

// Anthropic: a 5-minute cache write costs 1.25× the input price, a 1-hour one 2×, a cache read 0.1×.
function claude(input: number, output: number): ModelPrice {
  return price(input, output, input * 0.1, input * 1.25, input * 2);
}

/**
 * List prices of widely used models (standard tier, no batch discount), so that spend is right
 * without configuration. Keyed by model name without date suffix; `model_info` and AIGW_PRICE_MAP
 * override any of them.
 */
export const BUILT_IN_PRICES: ReadonlyMap<string, ModelPrice> = new Map([
  // OpenAI
  ['gpt-5', price(1.25, 10, 0.125)],
  ['gpt-5-mini', price(0.25, 2, 0.025)],
  ['gpt-5-nano', price(0.05, 0.4, 0.005)],
  ['gpt-4.1', price(2, 8, 0.5)],
  ['gpt-4.1-mini', price(0.4, 1.6, 0.1)],
  ['gpt-4.1-nano', price(0.1, 0.4, 0.025)],
  ['gpt-4o', price(2.5, 10, 1.25)],
  ['gpt-4o-mini', price(0.15, 0.6, 0.075)],
  ['gpt-4-turbo', price(10, 30)],
  ['gpt-4', price(30, 60)],
  ['gpt-3.5-turbo', price(0.5, 1.5)],
  ['gpt-3.5-turbo-instruct', price(1.5, 2)],
  ['o1', price(15, 60, 7.5)],
  ['o1-mini', price(1.1, 4.4, 0.55)],
  ['o3', price(2, 8, 0.5)],
  ['o3-mini', price(1.1, 4.4, 0.55)],
  ['o4-mini', price(1.1, 4.4, 0.275)],
  ['text-embedding-3-small', price(0.02, 0)],
  ['text-embedding-3-large', price(0.13, 0)],
  ['text-embedding-ada-002', price(0.1, 0)],
  // Anthropic
  ['claude-opus-4-5', claude(5, 25)],
  ['claude-opus-4-1', claude(15, 75)],
  ['claude-opus-4', claude(15, 75)],
  ['claude-sonnet-4-5', claude(3, 15)],
  ['claude-sonnet-4', claude(3, 15)],
  ['claude-3-7-sonnet', claude(3, 15)],
  ['claude-3-5-sonnet', claude(3, 15)],
  ['claude-haiku-4-5', claude(1, 5)],
  ['claude-3-5-haiku', claude(0.8, 4)],
  ['claude-3-haiku', price(0.25, 1.25, 0.03, 0.3, 0.5)], // published: 0.12× read, 1.2× write, 2× for an hour
  ['claude-3-opus', claude(15, 75)],
  // Google
  ['gemini-2.5-pro', price(1.25, 10, 0.125)],
  ['gemini-2.5-flash', price(0.3, 2.5, 0.03)],
  ['gemini-2.5-flash-lite', price(0.1, 0.4, 0.01)],
  ['gemini-2.0-flash', price(0.1, 0.4, 0.025)],
  ['gemini-2.0-flash-lite', price(0.075, 0.3)],
  ['gemini-1.5-pro', price(1.25, 5)],
  ['gemini-1.5-flash', price(0.075, 0.3)],
  ['gemini-embedding-001', price(0.15, 0)],
  ['text-embedding-004', price(0, 0)],
]);
