import type { ListPrice } from '../lib/provider-adapter';
import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

/** xAI's Grok API (`xai/grok-4`): OpenAI's format plus live search (`search_parameters`). */
export const xaiAdapter = openAiCompatibleAdapter({
  provider: 'xai',
  apiBase: 'https://api.x.ai/v1',
  env: { api_key: 'XAI_API_KEY' },
  chat: { rules: sameNames(...COMMON_CHAT_PARAMETERS, 'n', 'logprobs', 'top_logprobs', 'reasoning_effort', 'search_parameters') },
  prices: new Map<string, ListPrice>([
    ['grok-4', { input: 3, output: 15, cacheRead: 0.75 }],
    ['grok-3', { input: 3, output: 15, cacheRead: 0.75 }],
    ['grok-3-mini', { input: 0.3, output: 0.5, cacheRead: 0.075 }],
  ]),
});
