import { randomUUID } from 'node:crypto';
import { parseChatCompletion, type ChatUsage } from '../lib/chat.wire';
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

/**
 * An OpenAI chat completion as an Anthropic Messages answer under `model` (the alias): reasoning
 * the target exposed (`reasoning_content`) as a thinking block, then the text, then each tool
 * call as a tool_use block; finish reasons as stop reasons; usage in Anthropic's fields.
 */
export function toMessagesAnswer(text: string, model: string): MessagesAnswer {
  const completion = parseChatCompletion(text);
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: Record<string, unknown>[] = [];
  if (message?.reasoning_content) content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  const answerText = message?.content ?? message?.refusal ?? '';
  if (answerText !== '') content.push({ type: 'text', text: answerText });
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
