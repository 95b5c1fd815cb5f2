import { providerAdapterFor, providerAdapters } from '@arbor/provider-adapters';
import { catalogueModels } from './model-catalogue';

/** A LiteLLM `litellm_provider` (`vertex_ai-language-models`, `cohere_chat`, …) as the provider folder serving it, as each folder names its own. */
function servedProvider(litellmProvider: string): string | undefined {
  if (providerAdapterFor(litellmProvider)) return litellmProvider;
  const names = (name: string) => (name.endsWith('*') ? litellmProvider.startsWith(name.slice(0, -1)) : litellmProvider === name);
  return providerAdapters().find((adapter) => adapter.litellm?.providerNames?.some(names))?.provider;
}

/**
 * The model names the gateway knows and their providers, as LiteLLM's model map gives them: a
 * `model:` without a provider prefix (`gpt-5-mini`) resolves by it, and a wildcard alias lists
 * its provider's models from it. Built from AIGW_PRICE_MAP's `litellm_provider` fields when given
 * (which win, as LiteLLM reads only its map), every provider folder's price list, then the
 * maintained catalogue (model-catalogue.ts) for the names neither knows, as LiteLLM's own map would.
 */
export class KnownModels {
  private readonly providerByModel = new Map<string, string>();
  private readonly modelsByProvider = new Map<string, string[]>();

  constructor(priceMapProviders: ReadonlyMap<string, string> = new Map()) {
    for (const [key, litellmProvider] of priceMapProviders) {
      const provider = servedProvider(litellmProvider);
      if (!provider) continue;
      // `openrouter/mistralai/mistral-7b-instruct` is known by its name after the provider too, as LiteLLM does.
      const name = key.startsWith(`${provider}/`) ? key.slice(provider.length + 1) : key;
      this.add(name, provider);
    }
    // LiteLLM's own order when a name is known to several providers (get_llm_provider): first-party first.
    const adapters = providerAdapters().sort((a, b) => (a.litellm?.precedence ?? Infinity) - (b.litellm?.precedence ?? Infinity));
    for (const adapter of adapters) for (const model of adapter.prices.keys()) this.add(model, adapter.provider);
    for (const { model, provider } of catalogueModels()) this.add(model, provider);
  }

  /** The provider serving a model name without prefix, as LiteLLM resolves it; undefined when nothing knows it. */
  providerOf(model: string): string | undefined {
    return this.providerByModel.get(model) ?? this.providerByModel.get(withoutDateSuffix(model));
  }

  /** The provider's known model names (what `/v1/models` lists for its wildcard alias). */
  modelsOf(provider: string): readonly string[] {
    return this.modelsByProvider.get(provider) ?? [];
  }

  private add(model: string, provider: string): void {
    if (!this.providerByModel.has(model)) this.providerByModel.set(model, provider);
    const models = this.modelsByProvider.get(provider) ?? [];
    if (!models.includes(model)) models.push(model);
    this.modelsByProvider.set(provider, models);
  }
}

/** A model name without its version date (the price lists' and LiteLLM's fallback key). */
// gpt-4o-2024-08-06, claude-3-5-sonnet-20241022, claude-sonnet-4-5@20250929, gemini-1.5-pro-002, …-latest
export function withoutDateSuffix(model: string): string {
  return model.replace(/(-\d{4}-\d{2}-\d{2}|[-@]\d{8}|-\d{3}|-latest)$/, '');
}
