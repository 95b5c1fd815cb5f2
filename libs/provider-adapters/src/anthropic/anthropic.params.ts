import { asList, onlyString, ParameterMap, parameterNames } from '../lib/parameter-map';
import type { ProviderCall } from '../lib/provider-adapter';

/** Anthropic requires max_tokens; LiteLLM and most gateways send this when the client did not. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * The OpenAI-format chat parameters the Messages API has an equivalent for, and how each reaches it
 * (messages-chat/chat-to-messages.request.ts translates the `translated` ones: response_format as
 * Claude's structured outputs, or a tool where the model has none). Everything else (n, logprobs,
 * penalties, seed, …) has none and is refused or dropped by the gateway's drop_params. `top_k` and `thinking` are Anthropic's own and pass through.
 */
export const ANTHROPIC_CHAT_PARAMETERS: ParameterMap = {
  rules: {
    model: 'translated',
    messages: 'translated',
    max_tokens: {},
    max_completion_tokens: { to: 'max_tokens' },
    stop: { to: 'stop_sequences', convert: asList },
    stream: { convert: (value) => (value === true ? true : undefined) },
    // The translated stream always reports usage.
    stream_options: 'translated',
    temperature: {},
    top_p: {},
    top_k: {},
    tools: 'translated',
    tool_choice: 'translated',
    parallel_tool_calls: 'translated',
    user: { to: 'metadata.user_id', convert: onlyString },
    reasoning_effort: 'translated',
    thinking: 'translated',
    response_format: 'translated',
    // OpenAI's web search for chat, as Anthropic's web search server tool.
    web_search_options: 'translated',
  },
  required: { max_tokens: DEFAULT_MAX_TOKENS },
};

export const ANTHROPIC_CHAT_PARAMS: ReadonlySet<string> = parameterNames(ANTHROPIC_CHAT_PARAMETERS);

/**
 * The top-level fields of POST /v1/messages the gateway passes on to Anthropic; any other
 * (`service_tier`, a newer SDK's field, a typo) is dropped, so a client cannot reach a feature
 * the gateway does not account for.
 */
export const ANTHROPIC_MESSAGES_PARAMS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'container',
  'mcp_servers',
  'context_management',
]);

/** POST /v1/messages/count_tokens: only these four reach Anthropic. */
export const ANTHROPIC_COUNT_TOKENS_PARAMS: ReadonlySet<string> = new Set(['model', 'messages', 'tools', 'system']);

/** The `anthropic-version` sent when the client names none (Anthropic requires one). */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** `anthropic-beta` values passed on to Anthropic; others are removed from the header. */
export const KNOWN_ANTHROPIC_BETAS: ReadonlySet<string> = new Set([
  'message-batches-2024-09-24',
  'prompt-caching-2024-07-31',
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'pdfs-2024-09-25',
  'token-counting-2024-11-01',
  'token-efficient-tools-2025-02-19',
  'output-128k-2025-02-19',
  'files-api-2025-04-14',
  'mcp-client-2025-04-04',
  'dev-full-thinking-2025-05-14',
  'interleaved-thinking-2025-05-14',
  'code-execution-2025-05-22',
  'extended-cache-ttl-2025-04-11',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'model-context-window-exceeded-2025-08-26',
  'fine-grained-tool-streaming-2025-05-14',
  'claude-code-20250219',
  'oauth-2025-04-20',
  'web-fetch-2025-09-10',
  'skills-2025-10-02',
  'effort-2025-11-24',
  'structured-outputs-2025-11-13',
  'advanced-tool-use-2025-11-20',
]);

/** The client's `anthropic-beta` values that Claude's hosts are sent (KNOWN_ANTHROPIC_BETAS), in order. */
export function knownBetas(call: ProviderCall): string[] {
  const header = call.headers?.['anthropic-beta'];
  return (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => KNOWN_ANTHROPIC_BETAS.has(beta));
}
