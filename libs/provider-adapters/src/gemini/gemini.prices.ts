import type { ListPrice } from '../lib/provider-adapter';

const price = (input: number, output: number, cacheRead?: number): ListPrice => ({ input, output, ...(cacheRead !== undefined ? { cacheRead } : {}) });

/** Google's Gemini API list prices (prompts up to 200k tokens), USD per million tokens. */
export const GEMINI_PRICES: ReadonlyMap<string, ListPrice> = new Map([
  ['gemini-2.5-pro', price(1.25, 10, 0.125)],
  ['gemini-2.5-flash', price(0.3, 2.5, 0.03)],
  ['gemini-2.5-flash-lite', price(0.1, 0.4, 0.01)],
  ['gemini-2.0-flash', price(0.1, 0.4, 0.025)],
  ['gemini-2.0-flash-lite', price(0.075, 0.3)],
  ['gemini-1.5-pro', price(1.25, 5)],
  ['gemini-1.5-flash', price(0.075, 0.3)],
  ['gemini-embedding-001', price(0.15, 0)],
  ['text-embedding-004', price(0, 0)],
  // Imagen, per image generated.
  ['imagen-4.0-generate-001', { input: 0, output: 0, perImage: 0.04 }],
  ['imagen-4.0-fast-generate-001', { input: 0, output: 0, perImage: 0.02 }],
  ['imagen-4.0-ultra-generate-001', { input: 0, output: 0, perImage: 0.06 }],
  ['imagen-3.0-generate-002', { input: 0, output: 0, perImage: 0.03 }],
]);
