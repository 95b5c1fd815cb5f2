import { OPENAI_CHAT_COMPLETION_PARAMS, OPENAI_EMBEDDING_PARAMS, OPENAI_RESPONSES_PARAMS } from '../openai/openai.params';

// OpenAI-only features Azure OpenAI's inference API (2024-10-21 GA, 2025-04-01-preview) does not document.
const NOT_ON_AZURE = new Set(['prompt_cache_key', 'safety_identifier', 'service_tier', 'verbosity', 'web_search_options']);

/** Azure's chat completions: OpenAI's parameters plus "On Your Data" (`data_sources`) and Defender's `user_security_context`. */
export const AZURE_CHAT_COMPLETION_PARAMS: ReadonlySet<string> = new Set([
  ...[...OPENAI_CHAT_COMPLETION_PARAMS].filter((name) => !NOT_ON_AZURE.has(name)),
  'data_sources',
  'user_security_context',
]);

/** Azure's embeddings add `input_type` (query or document, for some models). */
export const AZURE_EMBEDDING_PARAMS: ReadonlySet<string> = new Set([...OPENAI_EMBEDDING_PARAMS, 'input_type']);

/** Azure's Responses API (v1) takes OpenAI's parameters; conversations are OpenAI's alone. */
export const AZURE_RESPONSES_PARAMS: ReadonlySet<string> = new Set([...OPENAI_RESPONSES_PARAMS].filter((name) => name !== 'conversation'));
