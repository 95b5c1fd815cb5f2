import type { ProviderAdapter } from '../lib/provider-adapter';

/**
 * The family A chat parameters the Messages API has an equivalent for (see anthropic.request.ts);
 * everything else (n, logprobs, penalties, seed, response_format, …) has none and is refused or
 * dropped by the gateway's drop_params. `top_k` and `thinking` are Anthropic's own and pass through.
 */
export const ANTHROPIC_CHAT_PARAMS: ReadonlySet<string> = new Set([
  'model', 'messages', 'max_tokens', 'max_completion_tokens', 'stop', 'stream', 'stream_options', 'temperature',
  'top_p', 'top_k', 'tools', 'tool_choice', 'parallel_tool_calls', 'user', 'reasoning_effort', 'thinking',
]);

export const ANTHROPIC_PARAMS: ProviderAdapter['params'] = { chat: ANTHROPIC_CHAT_PARAMS };
