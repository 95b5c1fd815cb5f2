import type { ListPrice } from '../lib/provider-adapter';

const price = (input: number, output: number, cacheRead?: number): ListPrice => ({ input, output, ...(cacheRead !== undefined ? { cacheRead } : {}) });

/** OpenAI's list prices (standard tier, no batch discount), USD per million tokens. */
export const OPENAI_PRICES: ReadonlyMap<string, ListPrice> = new Map([
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
  // Realtime models: text and audio tokens at their own prices (cached audio at the cached price).
  ['gpt-realtime', { ...price(4, 16, 0.4), audioInput: 32, audioOutput: 64 }],
  ['gpt-realtime-mini', { ...price(0.6, 2.4, 0.06), audioInput: 10, audioOutput: 20 }],
  ['gpt-4o-realtime-preview', { ...price(5, 20, 2.5), audioInput: 40, audioOutput: 80 }],
  ['gpt-4o-mini-realtime-preview', { ...price(0.6, 2.4, 0.3), audioInput: 10, audioOutput: 20 }],
]);
