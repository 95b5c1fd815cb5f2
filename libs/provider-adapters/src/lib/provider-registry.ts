import { anthropicAdapter } from '../anthropic/anthropic.adapter';
import { azureAdapter } from '../azure/azure.adapter';
import { azureAiAdapter } from '../azure_ai/azure-ai.adapter';
import { bedrockAdapter } from '../bedrock/bedrock.adapter';
import { geminiAdapter } from '../gemini/gemini.adapter';
import { cerebrasAdapter } from '../cerebras/cerebras.adapter';
import { cohereAdapter } from '../cohere/cohere.adapter';
import { deepseekAdapter } from '../deepseek/deepseek.adapter';
import { fireworksAiAdapter } from '../fireworks_ai/fireworks-ai.adapter';
import { groqAdapter } from '../groq/groq.adapter';
import { hostedVllmAdapter } from '../hosted_vllm/hosted-vllm.adapter';
import { jinaAdapter } from '../jina/jina.adapter';
import { lmStudioAdapter } from '../lm_studio/lm-studio.adapter';
import { mistralAdapter } from '../mistral/mistral.adapter';
import { ollamaAdapter } from '../ollama/ollama.adapter';
import { openAiAdapter } from '../openai/openai.adapter';
import { openRouterAdapter } from '../openrouter/openrouter.adapter';
import { perplexityAdapter } from '../perplexity/perplexity.adapter';
import { togetherAiAdapter } from '../together_ai/together-ai.adapter';
import { voyageAdapter } from '../voyage/voyage.adapter';
import { vertexAiAdapter } from '../vertex_ai/vertex-ai.adapter';
import { xaiAdapter } from '../xai/xai.adapter';
import type { NativeOperation, ProviderAdapter, ProviderOperation } from './provider-adapter';

// Adding a provider is adding a folder and one line here; nothing else names providers.
const ADAPTERS: ReadonlyMap<string, ProviderAdapter> = new Map(
  [
    openAiAdapter,
    anthropicAdapter,
    azureAdapter,
    geminiAdapter,
    bedrockAdapter,
    vertexAiAdapter,
    azureAiAdapter,
    // OpenAI-compatible, each described as data (openai/openai-compatible.ts).
    mistralAdapter,
    groqAdapter,
    deepseekAdapter,
    xaiAdapter,
    togetherAiAdapter,
    fireworksAiAdapter,
    openRouterAdapter,
    perplexityAdapter,
    cerebrasAdapter,
    ollamaAdapter,
    hostedVllmAdapter,
    lmStudioAdapter,
    cohereAdapter,
    // Rerank only (lib/rerank.ts).
    jinaAdapter,
    voyageAdapter,
  ].map((adapter) => [adapter.provider, adapter]),
);

export function providerAdapterFor(provider: string): ProviderAdapter | undefined {
  return ADAPTERS.get(provider);
}

export function providerAdapters(): ProviderAdapter[] {
  return [...ADAPTERS.values()];
}

export function supportedProviders(): string[] {
  return [...ADAPTERS.keys()];
}

/**
 * The operation as a provider serves it natively (LiteLLM's get_supported_openai_params and the
 * call); undefined when it does not, so that the gateway bridges or refuses it.
 */
export function nativeOperation(provider: string, operation: ProviderOperation): NativeOperation | undefined {
  return ADAPTERS.get(provider)?.operations[operation];
}
