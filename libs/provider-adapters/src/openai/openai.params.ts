/** Every documented parameter of OpenAI's POST /v1/chat/completions. */
export const OPENAI_CHAT_COMPLETION_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);

/** Every documented parameter of OpenAI's POST /v1/completions. */
export const OPENAI_COMPLETION_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'prompt',
  'best_of',
  'echo',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'max_tokens',
  'n',
  'presence_penalty',
  'seed',
  'stop',
  'stream',
  'stream_options',
  'suffix',
  'temperature',
  'top_p',
  'user',
]);

/** Every documented parameter of OpenAI's POST /v1/embeddings. */
export const OPENAI_EMBEDDING_PARAMS: ReadonlySet<string> = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user']);

/**
 * Every documented parameter of OpenAI's POST /v1/responses, and `client_metadata`, which OpenAI
 * accepts from its own clients (Codex CLI sends it on every call).
 */
export const OPENAI_RESPONSES_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'access_programs',
  'background',
  'client_metadata',
  'context_management',
  'conversation',
  'image',
  'include',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'moderation',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
]);

/** POST /v1/responses/compact. */
export const OPENAI_RESPONSES_COMPACT_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'previous_response_id',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'image',
]);

/** POST /v1/responses/input_tokens: what a Responses request would take as input. */
export const OPENAI_RESPONSES_INPUT_TOKENS_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'input',
  'instructions',
  'conversation',
  'parallel_tool_calls',
  'previous_response_id',
  'reasoning',
  'text',
  'tool_choice',
  'tools',
  'truncation',
]);

/** POST /v1/images/generations (GPT Image and DALL·E). */
export const OPENAI_IMAGE_GENERATION_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'prompt',
  'background',
  'moderation',
  'n',
  'output_compression',
  'output_format',
  'partial_images',
  'quality',
  'response_format',
  'size',
  'stream',
  'style',
  'user',
]);

/** POST /v1/images/edits, multipart (`image[]` when several images are sent). */
export const OPENAI_IMAGE_EDIT_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'prompt',
  'image',
  'image[]',
  'mask',
  'background',
  'input_fidelity',
  'n',
  'output_compression',
  'output_format',
  'partial_images',
  'quality',
  'response_format',
  'size',
  'stream',
  'user',
]);

/** POST /v1/audio/transcriptions, multipart (array fields with `[]`, as the SDKs send them). */
export const OPENAI_TRANSCRIPTION_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'file',
  'chunking_strategy',
  'include',
  'include[]',
  'known_speaker_names',
  'known_speaker_names[]',
  'known_speaker_references',
  'known_speaker_references[]',
  'language',
  'prompt',
  'response_format',
  'stream',
  'temperature',
  'timestamp_granularities',
  'timestamp_granularities[]',
]);

/** POST /v1/audio/speech. */
export const OPENAI_SPEECH_PARAMS: ReadonlySet<string> = new Set(['model', 'input', 'voice', 'instructions', 'response_format', 'speed', 'stream_format']);

/** POST /v1/moderations. */
export const OPENAI_MODERATION_PARAMS: ReadonlySet<string> = new Set(['model', 'input']);
