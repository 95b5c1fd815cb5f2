import type { ListPrice } from '../lib/provider-adapter';

// A 5-minute cache write costs 1.25× the input price, a 1-hour one 2×, a cache read 0.1×.
const claude = (input: number, output: number): ListPrice => ({ input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25, oneHourCacheWrite: input * 2 });

/** Anthropic's list prices, USD per million tokens. */
export const ANTHROPIC_PRICES: ReadonlyMap<string, ListPrice> = new Map([
  ['claude-opus-4-6', claude(5, 25)],
  ['claude-opus-4-5', claude(5, 25)],
  ['claude-opus-4-1', claude(15, 75)],
  ['claude-opus-4', claude(15, 75)],
  ['claude-sonnet-4-6', claude(3, 15)],
  ['claude-sonnet-4-5', claude(3, 15)],
  ['claude-sonnet-4', claude(3, 15)],
  ['claude-3-7-sonnet', claude(3, 15)],
  ['claude-3-5-sonnet', claude(3, 15)],
  ['claude-haiku-4-5', claude(1, 5)],
  ['claude-3-5-haiku', claude(0.8, 4)],
  // Published: 0.12× read, 1.2× write, 2× for an hour.
  ['claude-3-haiku', { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3, oneHourCacheWrite: 0.5 }],
  ['claude-3-opus', claude(15, 75)],
]);
