import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

/**
 * OpenRouter (`openrouter/anthropic/claude-sonnet-4.5`): OpenAI's format in front of many vendors,
 * with its routing fields (`models`, `route`, `provider`, `transforms`) and unified `reasoning`.
 * OpenRouter prices each call at the routed vendor's price: give `model_info` prices or an
 * AIGW_PRICE_MAP file for the models you use.
 */
export const openRouterAdapter = withLiteLlmPrecedence(
  4,
  openAiCompatibleAdapter({
    provider: 'openrouter',
    apiBase: 'https://openrouter.ai/api/v1',
    env: { api_key: 'OPENROUTER_API_KEY' },
    chat: {
      rules: sameNames(
        ...COMMON_CHAT_PARAMETERS,
        'logprobs',
        'top_logprobs',
        'logit_bias',
        'top_k',
        'min_p',
        'top_a',
        'repetition_penalty',
        'models',
        'route',
        'provider',
        'transforms',
        'reasoning',
        'usage',
      ),
    },
    completions: { rules: sameNames('model', 'prompt', 'max_tokens', 'stop', 'stream', 'stream_options', 'temperature', 'top_p', 'seed') },
  }),
);

function withLiteLlmPrecedence<T extends object>(precedence: number, adapter: T): T & { litellm: { precedence: number } } {
  return { ...adapter, litellm: { precedence } };
}
