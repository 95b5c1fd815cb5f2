import { anthropicAdapter } from '../anthropic/anthropic.adapter';
import { azureAdapter } from '../azure/azure.adapter';
import { geminiAdapter } from '../gemini/gemini.adapter';
import { openAiAdapter } from '../openai/openai.adapter';
import type { ProviderAdapter, ProviderOperation } from './provider-adapter';

// Adding a provider is adding a folder and one line here; nothing else names providers.
const ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map([openAiAdapter, anthropicAdapter, azureAdapter, geminiAdapter].map((adapter) => [adapter.provider, adapter]));

export function providerAdapterFor(provider: string): ProviderAdapter | undefined {
  return ADAPTERS.get(provider);
}

export function supportedProviders(): string[] {
  return [...ADAPTERS.keys()];
}

/**
 * The parameters of an operation a provider accepts (LiteLLM's get_supported_openai_params):
 * each adapter's own data, so drop_params is decided here and never by guessing. Undefined when
 * the provider does not offer the operation.
 */
export function supportedParams(provider: string, operation: ProviderOperation): ReadonlySet<string> | undefined {
  const adapter = ADAPTERS.get(provider);
  if (!adapter) return undefined;
  if (operation === 'completions' && !adapter.completions) return undefined;
  if (operation === 'embeddings' && !adapter.embeddings) return undefined;
  return adapter.params[operation];
}
