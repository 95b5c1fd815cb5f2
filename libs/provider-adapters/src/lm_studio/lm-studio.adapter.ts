import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

/**
 * LM Studio's local server (`lm_studio/<model>`): OpenAI's format plus its sampling fields; the
 * address is `api_base`, else LM_STUDIO_API_BASE, else LM Studio's own default.
 */
export const lmStudioAdapter = openAiCompatibleAdapter({
  provider: 'lm_studio',
  apiBase: 'http://localhost:1234/v1',
  env: { api_base: 'LM_STUDIO_API_BASE', api_key: 'LM_STUDIO_API_KEY' },
  chat: { rules: sameNames(...COMMON_CHAT_PARAMETERS, 'logit_bias', 'top_k', 'repeat_penalty', 'ttl', 'draft_model') },
  embeddings: { rules: sameNames('model', 'input') },
  completions: { rules: sameNames('model', 'prompt', 'max_tokens', 'stop', 'stream', 'stream_options', 'temperature', 'top_p', 'seed') },
});
