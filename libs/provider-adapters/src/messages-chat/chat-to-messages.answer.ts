import { randomUUID } from 'node:crypto';
import { parseChatCompletion, type ChatUsage, type WebSearchCall } from '../lib/chat.wire';
import type { MessagesAnswer, MessagesUsage } from './messages.wire';

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** A chat finish_reason as Anthropic's stop_reason; a stop at one of the request's stop sequences is `stop_sequence` when the text shows it. */
export function stopReasonFor(finishReason: string | null | undefined): string {
  return (finishReason && STOP_REASONS[finishReason]) || 'end_turn';
}

/** Chat usage in Anthropic's fields: cache reads apart from input tokens, as Anthropic counts them. */
export function messagesUsage(usage: ChatUsage | null | undefined): MessagesUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

export function messageId(chatId: string | undefined): string {
  return `msg_${(chatId ?? randomUUID()).replace(/^chatcmpl-/, '')}`;
}

/** JSON arguments of a tool call as the tool_use input; arguments that are not a JSON object are kept as a string. */
export function toolInput(argumentsText: string | undefined): unknown {
  if (argumentsText === undefined || argumentsText.trim() === '') return {};
  try {
    return JSON.parse(argumentsText) as unknown;
  } catch {
    return { arguments: argumentsText };
  }
}

/** A web search the target ran, as the two blocks Anthropic's web search server tool answers with: its call and its results. */
export function webSearchBlocks(search: WebSearchCall): Record<string, unknown>[] {
  const id = search.id.startsWith('srvtoolu_') ? search.id : `srvtoolu_${search.id}`;
  const content =
    search.status === 'failed'
      ? { type: 'web_search_tool_result_error', error_code: 'unavailable' }
      : (search.sources ?? []).map((source) => ({ type: 'web_search_result', url: source.url, title: source.title ?? '', encrypted_content: '', page_age: null }));
  return [
    { type: 'server_tool_use', id, name: 'web_search', input: { query: search.query ?? '' } },
    { type: 'web_search_tool_result', tool_use_id: id, content },
  ];
}

/** Chat's url_citation annotations over `text` as the web_search_result_location citations of Anthropic's text blocks. */
export function citationsOf(annotations: readonly unknown[] | null | undefined, text: string): Record<string, unknown>[] {
  return (annotations ?? []).flatMap((annotation) => {
    const { type, url_citation: citation } = annotation as { type?: unknown; url_citation?: { url: string; title?: string | null; start_index: number; end_index: number } };
    if (type !== 'url_citation' || !citation) return [];
    return [
      { type: 'web_search_result_location', url: citation.url, title: citation.title ?? '', cited_text: text.slice(citation.start_index, citation.end_index), encrypted_index: '' },
    ];
  });
}

/**
 * An OpenAI chat completion as an Anthropic Messages answer under `model` (the alias): reasoning
 * the target exposed (`reasoning_content`) as a thinking block, the web searches it ran as
 * server_tool_use and web_search_tool_result blocks, then the text (its url citations as
 * citations), then each tool call as a tool_use block; finish reasons as stop reasons; usage in Anthropic's fields.
 */
export function toMessagesAnswer(text: string, model: string): MessagesAnswer {
  const completion = parseChatCompletion(text);
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: Record<string, unknown>[] = [];
  if (message?.reasoning_content) content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  for (const search of message?.provider_specific_fields?.web_search_calls ?? []) content.push(...webSearchBlocks(search));
  const answerText = message?.content ?? message?.refusal ?? '';
  const citations = message?.content ? citationsOf(message.annotations, message.content) : [];
  if (answerText !== '') content.push({ type: 'text', text: answerText, ...(citations.length > 0 ? { citations } : {}) });
  for (const call of message?.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id ?? `toolu_${randomUUID()}`, name: call.function.name ?? '', input: toolInput(call.function.arguments) });
  }
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonFor(choice?.finish_reason),
    stop_sequence: null,
    usage: messagesUsage(completion.usage),
  };
}
