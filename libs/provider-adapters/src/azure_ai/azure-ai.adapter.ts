import type { ProviderAdapter, ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { messagesApiOperations } from '../anthropic/anthropic.adapter';
import { ANTHROPIC_PRICES } from '../anthropic/anthropic.prices';
import { messagesThroughChat } from '../messages-chat/messages-bridge';
import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';
import { OPENAI_PRICES } from '../openai/openai.prices';

/** The Azure AI model inference API version sent to a `…/models` endpoint when the deployment names none. */
export const DEFAULT_AZURE_AI_API_VERSION = '2024-05-01-preview';

/**
 * Models of the Azure AI model inference API (`https://<resource>.services.ai.azure.com/models`):
 * OpenAI's format with the key in `api-key` and an `api-version`; an `api_base` ending in a
 * version (`…/openai/v1`) is taken as it is.
 */
const foundryModels = openAiCompatibleAdapter({
  provider: 'azure_ai',
  env: { api_key: 'AZURE_AI_API_KEY', api_base: 'AZURE_AI_API_BASE' },
  keyHeader: 'api-key',
  settings: ['api_version'],
  chat: { rules: sameNames(...COMMON_CHAT_PARAMETERS, 'n', 'logprobs', 'top_logprobs', 'reasoning_effort') },
  embeddings: { rules: sameNames('model', 'input', 'dimensions', 'encoding_format', 'input_type') },
  endpoint: (apiBase, path, deployment) => {
    const base = apiBase.replace(/\/+$/, '');
    if (/\/v\d+$/.test(base) && deployment.apiVersion === undefined) return new URL(`${base}${path}`);
    const url = new URL(`${/\/(models|v\d+)$/.test(base) ? base : `${base}/models`}${path}`);
    url.searchParams.set('api-version', deployment.apiVersion ?? DEFAULT_AZURE_AI_API_VERSION);
    return url;
  },
});

// Claude on Foundry is Anthropic's Messages API at `https://<resource>.services.ai.azure.com/anthropic`, keyed in `api-key`.
const claude = messagesApiOperations('api-key');
const isClaudeModel = (model: string) => /^claude-/.test(model);
const isClaude = (call: ProviderCall) => isClaudeModel(call.deployment.model);
const foundryChat = foundryModels.operations.chat;

function callChat(call: ProviderCall): Promise<ProviderAnswer> {
  return isClaude(call) ? claude.chat.call(call) : foundryChat.call(call);
}

/**
 * Azure AI Foundry (`azure_ai/<deployment>`, `api_base` the resource's endpoint): its model
 * inference API for the models it hosts (Llama, Mistral, DeepSeek, Phi, GPT, …), and Claude
 * (`azure_ai/claude-…`, `api_base: https://<resource>.services.ai.azure.com/anthropic`) through
 * Anthropic's own Messages API: /v1/messages passes through, chat is translated.
 */
export const azureAiAdapter: ProviderAdapter = {
  provider: 'azure_ai',
  operations: {
    chat: {
      params: new Set([...foundryChat.params, ...claude.chat.params]),
      paramsFor: (deployment) => (isClaudeModel(deployment.model) ? claude.chat.params : foundryChat.params),
      call: callChat,
    },
    ...(foundryModels.operations.embeddings ? { embeddings: foundryModels.operations.embeddings } : {}),
    messages: { ...claude.messages, call: (call) => (isClaude(call) ? claude.messages.call(call) : messagesThroughChat(call, callChat)) },
  },
  settings: { ...foundryModels.settings, required: { api_base: 'https://<resource>.services.ai.azure.com/models, or …/anthropic for Claude' } },
  // Foundry bills OpenAI's and Anthropic's models at their vendors' list prices.
  prices: new Map([...OPENAI_PRICES, ...ANTHROPIC_PRICES]),
};
