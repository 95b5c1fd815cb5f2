import type { ListPrice } from '../lib/provider-adapter';
import { MAX_TOKENS_ONLY, openAiCompatibleAdapter, sameNames, USAGE_ALWAYS_STREAMED } from '../openai/openai-compatible';

/**
 * Cohere (`cohere/command-a-03-2025`) through its Compatibility API, Cohere's own OpenAI-format
 * front of its v2 chat and embed endpoints (tools, JSON output, reasoning), and its own v2 rerank
 * (`/v1/rerank` and `/v2/rerank` of the gateway), billed by search units.
 */
export const cohereAdapter = openAiCompatibleAdapter({
  provider: 'cohere',
  apiBase: 'https://api.cohere.ai/compatibility/v1',
  env: { api_key: 'COHERE_API_KEY' },
  chat: {
    rules: {
      ...sameNames(
        'model', 'messages', 'stream', 'temperature', 'top_p', 'max_tokens', 'stop', 'seed', 'frequency_penalty', 'presence_penalty',
        'tools', 'tool_choice', 'response_format', 'reasoning_effort',
      ),
      ...USAGE_ALWAYS_STREAMED,
      ...MAX_TOKENS_ONLY,
    },
  },
  embeddings: { rules: sameNames('model', 'input', 'encoding_format') },
  // The same api_base serves both: its root is what precedes /compatibility/v1.
  rerank: { wire: 'cohere', apiBase: 'https://api.cohere.com', apiBaseSuffix: /(\/compatibility)?\/v\d+$/, extraParams: ['max_tokens_per_doc'] },
  prices: new Map<string, ListPrice>([
    ['command-a-03-2025', { input: 2.5, output: 10 }],
    ['command-r-plus-08-2024', { input: 2.5, output: 10 }],
    ['command-r-08-2024', { input: 0.15, output: 0.6 }],
    ['command-r7b-12-2024', { input: 0.0375, output: 0.15 }],
    ['embed-v4.0', { input: 0.12, output: 0 }],
    ['embed-english-v3.0', { input: 0.1, output: 0 }],
    // Rerank: USD 2 per 1,000 searches (a query over up to 100 documents).
    ['rerank-v3.5', { input: 0, output: 0, perQuery: 0.002 }],
    ['rerank-english-v3.0', { input: 0, output: 0, perQuery: 0.002 }],
    ['rerank-multilingual-v3.0', { input: 0, output: 0, perQuery: 0.002 }],
  ]),
});
