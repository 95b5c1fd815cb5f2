import { providerAdapters, type ListPrice } from '@arbor/provider-adapters';
import { ModelPrice } from './model-price';

const M = 1e-6; // list prices are USD per million tokens, as providers publish them

function perToken(price: ListPrice): ModelPrice {
  return {
    inputCostPerToken: price.input * M,
    outputCostPerToken: price.output * M,
    ...(price.cacheRead !== undefined ? { cacheReadCostPerToken: price.cacheRead * M } : {}),
    ...(price.cacheWrite !== undefined ? { cacheCreationCostPerToken: price.cacheWrite * M } : {}),
    ...(price.oneHourCacheWrite !== undefined ? { oneHourCacheCreationCostPerToken: price.oneHourCacheWrite * M } : {}),
    ...(typeof price.perImage === 'number' ? { costPerImage: price.perImage } : price.perImage ? { imageCostByTier: price.perImage } : {}),
    ...(price.perSecond !== undefined ? { inputCostPerSecond: price.perSecond } : {}),
    ...(price.perCharacter !== undefined ? { inputCostPerCharacter: price.perCharacter } : {}),
    ...(price.audioInput !== undefined ? { inputCostPerAudioToken: price.audioInput * M } : {}),
    ...(price.audioOutput !== undefined ? { outputCostPerAudioToken: price.audioOutput * M } : {}),
    ...(price.perQuery !== undefined ? { inputCostPerQuery: price.perQuery } : {}),
  };
}

/**
 * Every provider's list prices (each provider folder owns its own), keyed `<provider>/<model>`
 * with the model named without date suffix, so that spend is right without configuration;
 * `model_info` and AIGW_PRICE_MAP override any of them.
 */
export const BUILT_IN_PRICES: ReadonlyMap<string, ModelPrice> = new Map(
  providerAdapters().flatMap((adapter) => [...adapter.prices].map(([model, price]) => [`${adapter.provider}/${model}`, perToken(price)] as const)),
);
