import { COMMON_CHAT_PARAMETERS, openAiCompatibleAdapter, sameNames } from '../openai/openai-compatible';

/**
 * Ollama (`ollama/llama3.2`) through its OpenAI-compatible API (`/v1/chat/completions`,
 * `/v1/completions`, `/v1/embeddings`); the address is `api_base`, else OLLAMA_API_BASE, else
 * Ollama's own default. Local models cost nothing.
 */
export const ollamaAdapter = openAiCompatibleAdapter({
  provider: 'ollama',
  apiBase: 'http://localhost:11434/v1',
  env: { api_base: 'OLLAMA_API_BASE' },
  chat: { rules: sameNames(...COMMON_CHAT_PARAMETERS, 'reasoning_effort') },
  embeddings: { rules: sameNames('model', 'input', 'dimensions', 'encoding_format') },
  completions: {
    rules: sameNames('model', 'prompt', 'max_tokens', 'stop', 'stream', 'stream_options', 'temperature', 'top_p', 'seed', 'suffix', 'presence_penalty', 'frequency_penalty'),
  },
});
