import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@arbor/config';
import { GatewayDeployment } from '../config/gateway-config';
import { loadPriceMap, ModelPrices } from './model-prices';

const usage = { promptTokens: 1000, completionTokens: 500, cachedTokens: 0, reasoningTokens: 0 };

function deployment(model: string, provider = 'openai', modelInfo: Record<string, unknown> = {}): GatewayDeployment {
  return { id: `${provider}-${model}`, alias: 'a', provider, model, modelInfo };
}

function priceFile(content: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'prices-')), 'prices.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('cost of a batch', () => {
  it.each([
    { provider: 'openai', share: 0.5 },
    { provider: 'azure', share: 0.5 },
    { provider: 'anthropic', share: 0.5 },
    { provider: 'mistral', share: 1 },
  ])("costs the share of the list price $provider's adapter declares ($share)", ({ provider, share }) => {
    const batched = deployment('m', provider, { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 });
    const prices = new ModelPrices([batched]);
    expect(prices.batchCost(batched, usage)).toBeCloseTo(prices.cost(batched, usage) * share, 12);
  });

  it('costs the batch prices of the price data where it has them', () => {
    const batched = deployment('m', 'openai', {
      input_cost_per_token: 1e-6,
      output_cost_per_token: 2e-6,
      input_cost_per_token_batches: 0.1e-6,
      output_cost_per_token_batches: 0.2e-6,
    });
    expect(new ModelPrices([batched]).batchCost(batched, usage)).toBeCloseTo(1000 * 0.1e-6 + 500 * 0.2e-6, 12);
  });
});

describe('cost of a call', () => {
  it('uses the built-in list price of a well-known model, also under a dated name', () => {
    const dated = deployment('gpt-4o-mini-2024-07-18');
    const prices = new ModelPrices([dated]);
    // 1000 × $0.15/M + 500 × $0.60/M
    expect(prices.cost(dated, usage)).toBeCloseTo(0.00045, 12);
  });

  it('costs a call as the exact decimal, which its float products would miss', () => {
    const model = deployment('gpt-4o-mini');
    const prices = new ModelPrices([model]);
    // 13 × $0.15/M + 7 × $0.60/M: as floats 0.0000061499999999999996.
    expect(String(13 * 0.00000015 + 7 * 0.0000006)).not.toBe('0.00000615');
    expect(String(prices.cost(model, { promptTokens: 13, completionTokens: 7, cachedTokens: 0, reasoningTokens: 0 }))).toBe('0.00000615');
    expect(String(prices.batchCost(model, { promptTokens: 13, completionTokens: 7, cachedTokens: 0, reasoningTokens: 0 }))).toBe('0.000003075');
  });

  it('charges cached prompt tokens at the cache price and reasoning tokens at their own price', () => {
    const model = deployment('o-custom', 'openai', {
      input_cost_per_token: 1e-6,
      output_cost_per_token: 2e-6,
      cache_read_input_token_cost: 0.1e-6,
      output_cost_per_reasoning_token: 3e-6,
    });
    const prices = new ModelPrices([model]);
    const cost = prices.cost(model, { promptTokens: 1000, completionTokens: 500, cachedTokens: 400, reasoningTokens: 100 });
    expect(cost).toBeCloseTo(600 * 1e-6 + 400 * 0.1e-6 + 400 * 2e-6 + 100 * 3e-6, 12);
  });

  it('charges Anthropic cache writes at cache_creation_input_token_cost and reads at the cache price', () => {
    const usageWithCache = { promptTokens: 100 + 1000 + 2000, completionTokens: 20, cachedTokens: 2000, cacheWriteTokens: 1000, reasoningTokens: 0 };
    // Built in: claude-sonnet-4-5 at $3 in, $15 out, reads $0.30, writes $3.75 (1.25×) per million.
    const sonnet = deployment('claude-sonnet-4-5-20250929', 'anthropic');
    expect(new ModelPrices([sonnet]).cost(sonnet, usageWithCache)).toBeCloseTo(100 * 3e-6 + 1000 * 3.75e-6 + 2000 * 0.3e-6 + 20 * 15e-6, 12);
    // model_info (LiteLLM's field names) overrides it.
    const priced = deployment('my-claude', 'anthropic', {
      input_cost_per_token: 1e-6,
      output_cost_per_token: 2e-6,
      cache_read_input_token_cost: 0.1e-6,
      cache_creation_input_token_cost: 5e-6,
    });
    expect(new ModelPrices([priced]).cost(priced, usageWithCache)).toBeCloseTo(100 * 1e-6 + 1000 * 5e-6 + 2000 * 0.1e-6 + 20 * 2e-6, 12);
    // Without a cache write price, writes cost the input price.
    const plain = deployment('plain', 'anthropic', { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6 });
    expect(new ModelPrices([plain]).cost(plain, usageWithCache)).toBeCloseTo(3100 * 1e-6 + 20 * 2e-6, 12);
  });

  it('charges writes to the one-hour cache at their own price, 2× the input price for Claude unless overridden', () => {
    const usageWithOneHour = { promptTokens: 100 + 1000, completionTokens: 20, cachedTokens: 0, cacheWriteTokens: 1000, oneHourCacheWriteTokens: 600, reasoningTokens: 0 };
    const sonnet = deployment('claude-sonnet-4-5', 'anthropic');
    expect(new ModelPrices([sonnet]).cost(sonnet, usageWithOneHour)).toBeCloseTo(100 * 3e-6 + 400 * 3.75e-6 + 600 * 6e-6 + 20 * 15e-6, 12);
    const priced = deployment('my-claude', 'anthropic', {
      input_cost_per_token: 1e-6,
      output_cost_per_token: 2e-6,
      cache_creation_input_token_cost: 5e-6,
      cache_creation_input_token_cost_above_1hr: 7e-6,
    });
    expect(new ModelPrices([priced]).cost(priced, usageWithOneHour)).toBeCloseTo(100 * 1e-6 + 400 * 5e-6 + 600 * 7e-6 + 20 * 2e-6, 12);
    // Without a one-hour price, they cost what any cache write costs.
    const fiveMinuteOnly = deployment('other', 'anthropic', { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6, cache_creation_input_token_cost: 5e-6 });
    expect(new ModelPrices([fiveMinuteOnly]).cost(fiveMinuteOnly, usageWithOneHour)).toBeCloseTo(100 * 1e-6 + 1000 * 5e-6 + 20 * 2e-6, 12);
  });

  it('lets model_info override the price map, and the price map override the built-in list', () => {
    const map = loadPriceMap(priceFile({ 'gpt-4o': { input_cost_per_token: 1e-6, output_cost_per_token: 1e-6 }, sample_spec: { input_cost_per_token: 'docs' } }));
    const plain = deployment('gpt-4o');
    const azure = deployment('my-prod-deployment', 'azure', { base_model: 'gpt-4o', output_cost_per_token: 4e-6 });
    const prices = new ModelPrices([plain, azure], map);
    expect(prices.cost(plain, usage)).toBeCloseTo(1500e-6, 12);
    expect(prices.cost(azure, usage)).toBeCloseTo(1000e-6 + 2000e-6, 12);
  });

  it('costs 0 for a model nobody priced, rather than guessing', () => {
    const unknown = deployment('llama-3-70b-local');
    expect(new ModelPrices([unknown]).cost(unknown, usage)).toBe(0);
  });

  it('stops the start on a bad price, naming the variable and the entry', () => {
    expect(() => new ModelPrices([deployment('x', 'openai', { input_cost_per_token: 'cheap' })])).toThrow(ConfigError);
    expect(() => new ModelPrices([deployment('x', 'openai', { input_cost_per_token: 'cheap' })])).toThrow(/AIGW_CONFIG: model_info of openai-x\.input_cost_per_token/);
    expect(() => loadPriceMap(priceFile({ 'gpt-4o': { output_cost_per_token: -1 } }))).toThrow(/AIGW_PRICE_MAP: gpt-4o\.output_cost_per_token/);
    expect(() => loadPriceMap(priceFile('{ not json'))).toThrow(/AIGW_PRICE_MAP: cannot read .* as JSON/);
    expect(() => loadPriceMap('/nonexistent/prices.json')).toThrow(/AIGW_PRICE_MAP/);
  });
});
