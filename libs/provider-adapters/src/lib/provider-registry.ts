import { openAiAdapter } from '../openai/openai.adapter';
import type { ProviderAdapter } from './provider-adapter';

// Adding a provider is adding a folder and one line here; nothing else names providers.
const ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map([openAiAdapter].map((adapter) => [adapter.provider, adapter]));

export function providerAdapterFor(provider: string): ProviderAdapter | undefined {
  return ADAPTERS.get(provider);
}

export function supportedProviders(): string[] {
  return [...ADAPTERS.keys()];
}

/**
 * The chat-completions parameters a provider accepts (LiteLLM's get_supported_openai_params):
 * each adapter's own data, so drop_params is decided here and never by guessing.
 */
export function supportedChatCompletionParams(provider: string): ReadonlySet<string> | undefined {
  return ADAPTERS.get(provider)?.chatCompletionParams;
}
