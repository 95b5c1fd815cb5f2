/** Every documented parameter of OpenAI's POST /v1/chat/completions. */
export const OPENAI_CHAT_COMPLETION_PARAMS: ReadonlySet<string> = new Set([
  'model', 'messages', 'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs',
  'max_completion_tokens', 'max_tokens', 'metadata', 'modalities', 'n', 'parallel_tool_calls', 'prediction',
  'presence_penalty', 'prompt_cache_key', 'reasoning_effort', 'response_format', 'safety_identifier', 'seed',
  'service_tier', 'stop', 'store', 'stream', 'stream_options', 'temperature', 'tool_choice', 'tools',
  'top_logprobs', 'top_p', 'user', 'verbosity', 'web_search_options',
]);
