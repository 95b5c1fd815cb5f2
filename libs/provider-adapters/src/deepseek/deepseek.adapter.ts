import type { ListPrice } from '../lib/provider-adapter';
import { COMMON_CHAT_PARAMETERS, MAX_TOKENS_ONLY, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

/** DeepSeek's API (`deepseek/deepseek-chat`, `deepseek/deepseek-reasoner`): OpenAI's format, `max_tokens` only, no seed. */
export const deepseekAdapter = openAiCompatibleAdapter({
  provider: 'deepseek',
  apiBase: 'https://api.deepseek.com',
  env: { api_key: 'DEEPSEEK_API_KEY' },
  chat: {
    rules: {
      ...sameNames(...COMMON_CHAT_PARAMETERS.filter((name) => name !== 'seed' && name !== 'parallel_tool_calls'), 'logprobs', 'top_logprobs', 'thinking'),
      ...MAX_TOKENS_ONLY,
    },
  },
  // Cache hits are billed at a tenth of the input price.
  prices: new Map<string, ListPrice>([
    ['deepseek-chat', { input: 0.28, output: 0.42, cacheRead: 0.028 }],
    ['deepseek-reasoner', { input: 0.28, output: 0.42, cacheRead: 0.028 }],
  ]),
});
