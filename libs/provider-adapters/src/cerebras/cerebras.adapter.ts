import type { ListPrice } from '../lib/provider-adapter';
import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames, USAGE_ALWAYS_STREAMED } from '../openai/openai-compatible';

/** Cerebras Inference (`cerebras/llama-3.3-70b`): OpenAI's format; no penalties; usage on every stream's last chunk. */
export const cerebrasAdapter = openAiCompatibleAdapter({
  provider: 'cerebras',
  apiBase: 'https://api.cerebras.ai/v1',
  env: { api_key: 'CEREBRAS_API_KEY' },
  chat: {
    rules: {
      ...sameNames(...COMMON_CHAT_PARAMETERS.filter((name) => name !== 'presence_penalty' && name !== 'frequency_penalty'), 'logprobs', 'top_logprobs', 'reasoning_effort'),
      ...USAGE_ALWAYS_STREAMED,
    },
  },
  completions: { rules: sameNames('model', 'prompt', 'max_tokens', 'stop', 'stream', 'stream_options', 'temperature', 'top_p', 'seed', 'echo') },
  prices: new Map<string, ListPrice>([
    ['llama3.1-8b', { input: 0.1, output: 0.1 }],
    ['llama-3.3-70b', { input: 0.85, output: 1.2 }],
  ]),
});
