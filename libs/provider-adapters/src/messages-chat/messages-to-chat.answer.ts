import type { UrlCitation, WebSearchCall } from '../lib/chat.wire';
import type { ResponseFormatTool } from './chat-to-messages.request';
import type { AnthropicBlock, AnthropicMessage, AnthropicUsage } from './messages.wire';

export type { AnthropicBlock, AnthropicMessage, AnthropicUsage } from './messages.wire';

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function finishReasonFor(stopReason: string | null | undefined): string {
  return (stopReason && FINISH_REASONS[stopReason]) || 'stop';
}

/**
 * Anthropic counts cache reads and writes apart from input_tokens; OpenAI-format counts them all as
 * prompt tokens, reads as cached_tokens. Writes cost more than input, so, as LiteLLM does, they
 * are also reported as cache_creation_input_tokens (and reads as cache_read_input_tokens), and,
 * when some went to the one-hour cache (dearer still), split by lifetime in
 * prompt_tokens_details.cache_creation_token_details.
 */
export function openAiUsage(usage: AnthropicUsage): Record<string, unknown> {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheWrite + cacheRead;
  const completionTokens = usage.output_tokens ?? 0;
  const oneHourWrites = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const promptDetails: Record<string, unknown> = { cached_tokens: cacheRead };
  if (oneHourWrites > 0) {
    promptDetails['cache_creation_tokens'] = cacheWrite;
    promptDetails['cache_creation_token_details'] = {
      ephemeral_5m_input_tokens: usage.cache_creation?.ephemeral_5m_input_tokens ?? cacheWrite - oneHourWrites,
      ephemeral_1h_input_tokens: oneHourWrites,
    };
  }
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: promptDetails,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

/** A thinking or redacted_thinking block in LiteLLM's thinking_blocks shape. */
export function thinkingBlockOf(block: AnthropicBlock): Record<string, unknown> {
  if (block.type === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data ?? '' };
  return { type: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' };
}

/** A web_search_result_location citation of a text block as OpenAI's url_citation over [start, end) of the message's content. */
export function urlCitationOf(citation: unknown, start: number, end: number): UrlCitation | undefined {
  const { type, url, title } = (citation ?? {}) as { type?: unknown; url?: unknown; title?: unknown };
  if (type !== 'web_search_result_location' || typeof url !== 'string') return undefined;
  return { type: 'url_citation', url_citation: { url, title: typeof title === 'string' ? title : null, start_index: start, end_index: end } };
}

/** A web search the server tool ran: its call (the query) and its result block (the pages found, or an error). */
export function webSearchCallOf(call: AnthropicBlock | undefined, result: AnthropicBlock): WebSearchCall {
  const id = String((result as { tool_use_id?: unknown }).tool_use_id ?? call?.id ?? '');
  const query = (call?.input as { query?: unknown } | undefined)?.query;
  const content = (result as { content?: unknown }).content;
  const found = Array.isArray(content)
    ? (content as { type?: unknown; url?: unknown; title?: unknown }[]).filter((page) => page?.type === 'web_search_result' && typeof page.url === 'string')
    : undefined;
  return {
    id,
    status: found ? 'completed' : 'failed',
    query: typeof query === 'string' ? query : null,
    sources: (found ?? []).map((page) => ({ url: page.url as string, title: typeof page.title === 'string' ? page.title : null })),
  };
}

/**
 * A Messages API answer as an OpenAI-format chat.completion. `jsonTool`: the tool that carried the
 * request's response_format; its call, when Claude made it, is the message content (as JSON text),
 * not a tool call, and the answer stops as any other. Web searches Anthropic's server tool ran
 * become `provider_specific_fields.web_search_calls`, and the text's citations of their pages
 * `annotations` (url_citation over the cited text).
 */
export function toChatCompletion(message: AnthropicMessage, model: string, created: number, jsonTool?: ResponseFormatTool): Record<string, unknown> {
  const json = jsonTool ? message.content.find((block) => block.type === 'tool_use' && block.name === jsonTool.name) : undefined;
  if (json)
    message = {
      ...message,
      content: message.content.filter((block) => block !== json && block.type !== 'text'),
      stop_reason: message.stop_reason === 'tool_use' ? 'end_turn' : message.stop_reason,
    };
  let text = '';
  const citations: UrlCitation[] = [];
  const searches: WebSearchCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') {
      const start = text.length;
      text += block.text ?? '';
      const cited = (block as { citations?: unknown }).citations;
      for (const citation of Array.isArray(cited) ? cited : []) {
        const annotation = urlCitationOf(citation, start, text.length);
        if (annotation) citations.push(annotation);
      }
    } else if (block.type === 'web_search_tool_result') {
      const call = message.content.find((other) => other.type === 'server_tool_use' && other.id === (block as { tool_use_id?: unknown }).tool_use_id);
      searches.push(webSearchCallOf(call, block));
    }
  }
  if (json) text = JSON.stringify(json.input ?? {});
  const thinking = message.content
    .filter((block) => block.type === 'thinking')
    .map((block) => block.thinking ?? '')
    .join('');
  const toolCalls = message.content
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }));
  const reply: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null };
  if (thinking !== '') reply['reasoning_content'] = thinking;
  const thinkingBlocks = message.content.filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking').map(thinkingBlockOf);
  // As LiteLLM returns them: the client sends them back with the tool results, and Anthropic requires that.
  if (thinkingBlocks.length > 0) reply['thinking_blocks'] = thinkingBlocks;
  if (toolCalls.length > 0) reply['tool_calls'] = toolCalls;
  if (citations.length > 0) reply['annotations'] = citations;
  if (searches.length > 0) reply['provider_specific_fields'] = { web_search_calls: searches };
  return {
    id: message.id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: reply, logprobs: null, finish_reason: finishReasonFor(message.stop_reason) }],
    usage: openAiUsage(message.usage),
  };
}
