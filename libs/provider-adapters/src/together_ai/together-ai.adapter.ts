import type { ListPrice } from '../lib/provider-adapter';
import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames, USAGE_ALWAYS_STREAMED } from '../openai/openai-compatible';

/** Together AI (`together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo`): OpenAI's format plus open-model sampling. */
export const togetherAiAdapter = openAiCompatibleAdapter({
  provider: 'together_ai',
  apiBase: 'https://api.together.xyz/v1',
  env: { api_key: 'TOGETHERAI_API_KEY' },
  chat: {
    rules: {
      ...sameNames(...COMMON_CHAT_PARAMETERS, 'n', 'logprobs', 'logit_bias', 'top_k', 'min_p', 'repetition_penalty', 'reasoning_effort'),
      ...USAGE_ALWAYS_STREAMED,
    },
  },
  embeddings: { rules: sameNames('model', 'input') },
  completions: { rules: sameNames('model', 'prompt', 'max_tokens', 'stop', 'stream', 'temperature', 'top_p', 'top_k', 'seed', 'n', 'echo', 'logprobs') },
  prices: new Map<string, ListPrice>([
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo', { input: 0.88, output: 0.88 }],
    ['meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo', { input: 0.18, output: 0.18 }],
    ['deepseek-ai/DeepSeek-V3', { input: 1.25, output: 1.25 }],
  ]),
});
