import type { ListPrice } from '../lib/provider-adapter';
import { MAX_TOKENS_ONLY, openAiCompatibleAdapter, sameNames, USAGE_ALWAYS_STREAMED } from '../openai/openai-compatible';

/**
 * Perplexity's Sonar API (`perplexity/sonar-pro`): OpenAI's chat format with web search built in
 * (its search filters pass through); no tools, no stop sequences, usage on every stream's end.
 * Perplexity's per-request search fees are not in the token prices.
 */
export const perplexityAdapter = openAiCompatibleAdapter({
  provider: 'perplexity',
  apiBase: 'https://api.perplexity.ai',
  env: { api_key: 'PERPLEXITYAI_API_KEY' },
  chat: {
    rules: {
      ...sameNames(
        'model',
        'messages',
        'stream',
        'temperature',
        'top_p',
        'top_k',
        'max_tokens',
        'presence_penalty',
        'frequency_penalty',
        'response_format',
        'reasoning_effort',
        'web_search_options',
        'search_mode',
        'search_domain_filter',
        'search_recency_filter',
        'return_images',
        'return_related_questions',
      ),
      ...USAGE_ALWAYS_STREAMED,
      ...MAX_TOKENS_ONLY,
    },
  },
  prices: new Map<string, ListPrice>([
    ['sonar', { input: 1, output: 1 }],
    ['sonar-pro', { input: 3, output: 15 }],
    ['sonar-reasoning', { input: 1, output: 5 }],
    ['sonar-reasoning-pro', { input: 2, output: 8 }],
  ]),
});
