/** The chat-completion parameters gemini.request.ts translates; anything else is not sent on. */
export const GEMINI_CHAT_PARAMS: ReadonlySet<string> = new Set([
  'model', 'messages', 'stream', 'stream_options', 'temperature', 'top_p', 'n', 'stop', 'max_tokens',
  'max_completion_tokens', 'presence_penalty', 'frequency_penalty', 'seed', 'response_format', 'tools',
  'tool_choice', 'reasoning_effort',
]);

/** batchEmbedContents takes text and an output size; `encoding_format` is done by the adapter. */
export const GEMINI_EMBEDDING_PARAMS: ReadonlySet<string> = new Set(['model', 'input', 'dimensions', 'encoding_format']);
