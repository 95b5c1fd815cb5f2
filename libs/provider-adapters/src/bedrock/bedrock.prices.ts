import type { ListPrice } from '../lib/provider-adapter';

// A 5-minute cache write costs 1.25× the input price, a cache read 0.1×, as on Anthropic's own API.
const claude = (input: number, output: number): ListPrice => ({ input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 });

/**
 * Bedrock's on-demand list prices (us-east-1), USD per million tokens, by model id. Cross-region
 * inference profiles (`us.…`, `eu.…`, `global.…`) cost what the model costs.
 */
const BY_MODEL: [string, ListPrice][] = [
  ['anthropic.claude-sonnet-4-5-20250929-v1:0', claude(3, 15)],
  ['anthropic.claude-sonnet-4-20250514-v1:0', claude(3, 15)],
  ['anthropic.claude-3-7-sonnet-20250219-v1:0', claude(3, 15)],
  ['anthropic.claude-3-5-sonnet-20240620-v1:0', claude(3, 15)],
  ['anthropic.claude-haiku-4-5-20251001-v1:0', claude(1, 5)],
  ['anthropic.claude-3-5-haiku-20241022-v1:0', claude(0.8, 4)],
  ['anthropic.claude-3-haiku-20240307-v1:0', { input: 0.25, output: 1.25 }],
  ['anthropic.claude-opus-4-1-20250805-v1:0', claude(15, 75)],
  ['meta.llama3-3-70b-instruct-v1:0', { input: 0.72, output: 0.72 }],
  ['meta.llama3-1-8b-instruct-v1:0', { input: 0.22, output: 0.22 }],
  ['mistral.mistral-large-2402-v1:0', { input: 4, output: 12 }],
  ['amazon.nova-pro-v1:0', { input: 0.8, output: 3.2, cacheRead: 0.2 }],
  ['amazon.nova-lite-v1:0', { input: 0.06, output: 0.24, cacheRead: 0.015 }],
  ['amazon.nova-micro-v1:0', { input: 0.035, output: 0.14, cacheRead: 0.00875 }],
  ['cohere.command-r-plus-v1:0', { input: 3, output: 15 }],
  ['amazon.titan-embed-text-v2:0', { input: 0.02, output: 0 }],
  ['amazon.titan-embed-text-v1', { input: 0.1, output: 0 }],
  ['cohere.embed-english-v3', { input: 0.1, output: 0 }],
  ['cohere.embed-multilingual-v3', { input: 0.1, output: 0 }],
];

export const BEDROCK_PRICES: ReadonlyMap<string, ListPrice> = new Map(
  BY_MODEL.flatMap(([model, price]) => [
    [model, price],
    ...(model.startsWith('anthropic.') || model.startsWith('meta.') || model.startsWith('amazon.nova')
      ? ['us', 'eu', 'apac', 'global'].map((area) => [`${area}.${model}`, price] as [string, ListPrice])
      : []),
  ]),
);
