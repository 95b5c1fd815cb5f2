import type { ListPrice } from '../lib/provider-adapter';
import { COMMON_CHAT_PARAMETERS, MAX_TOKENS_ONLY, openAiCompatibleAdapter, sameNames, USAGE_ALWAYS_STREAMED } from '../openai/openai-compatible';

/**
 * Mistral's La Plateforme (`mistral/mistral-large-latest`): OpenAI's format, with `random_seed`
 * for `seed`, `any` for `tool_choice: "required"`, no `user`, and usage on every stream's last chunk.
 */
export const mistralAdapter = openAiCompatibleAdapter({
  provider: 'mistral',
  apiBase: 'https://api.mistral.ai/v1',
  env: { api_key: 'MISTRAL_API_KEY' },
  chat: {
    rules: {
      ...sameNames(...COMMON_CHAT_PARAMETERS.filter((name) => name !== 'user'), 'n', 'prediction', 'safe_prompt'),
      ...USAGE_ALWAYS_STREAMED,
      ...MAX_TOKENS_ONLY,
      seed: { to: 'random_seed' },
      tool_choice: { convert: (value) => (value === 'required' ? 'any' : value) },
    },
  },
  embeddings: { rules: { ...sameNames('model', 'input', 'encoding_format'), dimensions: { to: 'output_dimension' } } },
  prices: new Map<string, ListPrice>([
    ['mistral-large-latest', { input: 2, output: 6 }],
    ['mistral-medium-latest', { input: 0.4, output: 2 }],
    ['mistral-small-latest', { input: 0.1, output: 0.3 }],
    ['codestral-latest', { input: 0.3, output: 0.9 }],
    ['mistral-embed', { input: 0.1, output: 0 }],
  ]),
});
