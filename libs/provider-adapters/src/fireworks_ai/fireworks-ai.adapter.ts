import type { ListPrice } from '../lib/provider-adapter';
import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

/** Fireworks AI (`fireworks_ai/accounts/fireworks/models/llama-v3p3-70b-instruct`): OpenAI's format plus Fireworks' sampling and truncation. */
export const fireworksAiAdapter = openAiCompatibleAdapter({
  provider: 'fireworks_ai',
  apiBase: 'https://api.fireworks.ai/inference/v1',
  env: { api_key: 'FIREWORKS_AI_API_KEY' },
  chat: {
    rules: sameNames(
      ...COMMON_CHAT_PARAMETERS,
      'n',
      'logprobs',
      'top_logprobs',
      'top_k',
      'min_p',
      'repetition_penalty',
      'reasoning_effort',
      'prompt_truncate_len',
      'context_length_exceeded_behavior',
    ),
  },
  embeddings: { rules: sameNames('model', 'input', 'dimensions') },
  completions: { rules: sameNames('model', 'prompt', 'max_tokens', 'stop', 'stream', 'stream_options', 'temperature', 'top_p', 'top_k', 'seed', 'n', 'echo', 'logprobs') },
  prices: new Map<string, ListPrice>([
    ['accounts/fireworks/models/llama-v3p3-70b-instruct', { input: 0.9, output: 0.9 }],
    ['accounts/fireworks/models/llama-v3p1-8b-instruct', { input: 0.2, output: 0.2 }],
  ]),
});
