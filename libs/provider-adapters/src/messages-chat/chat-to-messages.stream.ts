import type { EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../lib/provider-error';
import { messageId, messagesUsage, stopReasonFor } from './chat-to-messages.answer';
import { chatCompletionChunk, type ChatUsage } from './messages.wire';

/** One Anthropic stream event (`type` names it, as its `event:` line does). */
export type MessagesEvent = { type: string } & Record<string, unknown>;

type OpenBlock = { kind: 'thinking' | 'text' } | { kind: 'tool'; chatIndex: number };

/**
 * OpenAI chat completion chunks as Anthropic Messages stream events, one for one as they arrive
 * (never buffered): message_start and a ping first; reasoning deltas as a thinking block, content
 * as a text block, each tool call as a tool_use block with input_json_delta, each block stopped
 * before the next starts; at the end message_delta with the stop reason and the usage (the
 * gateway always asks the chat stream for it), then message_stop. An error the upstream sent in
 * its stream, or a stream that breaks off, throws ProviderError.
 */
export async function* toMessagesEvents(events: AsyncIterable<EventSourceMessage>, model: string): AsyncGenerator<MessagesEvent> {
  let started = false;
  let index = -1;
  let open: OpenBlock | undefined;
  let finishReason: string | null | undefined;
  let usage: ChatUsage | null | undefined;
  const stop = function* (): Generator<MessagesEvent> {
    if (open) yield { type: 'content_block_stop', index };
    open = undefined;
  };
  const start = function* (block: OpenBlock, contentBlock: Record<string, unknown>): Generator<MessagesEvent> {
    yield* stop();
    index++;
    open = block;
    yield { type: 'content_block_start', index, content_block: contentBlock };
  };

  for await (const sse of events) {
    if (sse.data === '[DONE]') break;
    let json: unknown;
    try {
      json = JSON.parse(sse.data);
    } catch {
      throw new ProviderError(502, 'server_error', 'The upstream stream sent an event that is not JSON.', 'upstream_stream_broken');
    }
    const parsed = chatCompletionChunk.safeParse(json);
    if (!parsed.success) throw new ProviderError(502, 'server_error', 'The upstream stream sent an event that is not a chat completion chunk.', 'upstream_stream_broken');
    const chunk = parsed.data;
    if (chunk.error) {
      const code = typeof chunk.error.code === 'string' ? chunk.error.code : (chunk.error.type ?? 'stream_error');
      throw new ProviderError(502, chunk.error.type ?? 'server_error', chunk.error.message ?? 'The upstream failed mid-stream.', code);
    }
    if (!started) {
      started = true;
      yield {
        type: 'message_start',
        message: { id: messageId(chunk.id), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
      };
      yield { type: 'ping' };
    }
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta;
    if (delta?.reasoning_content) {
      if (open?.kind !== 'thinking') yield* start({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
      yield { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: delta.reasoning_content } };
    }
    const text = delta?.content ?? delta?.refusal;
    if (text) {
      if (open?.kind !== 'text') yield* start({ kind: 'text' }, { type: 'text', text: '' });
      yield { type: 'content_block_delta', index, delta: { type: 'text_delta', text } };
    }
    for (const call of delta?.tool_calls ?? []) {
      if (open?.kind !== 'tool' || open.chatIndex !== call.index) {
        yield* start({ kind: 'tool', chatIndex: call.index }, { type: 'tool_use', id: call.id ?? `toolu_${index + 1}`, name: call.function.name ?? '', input: {} });
      }
      if (call.function.arguments) yield { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.function.arguments } };
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!started || finishReason === undefined) {
    throw new ProviderError(502, 'server_error', 'The upstream stream ended before its answer was complete.', 'upstream_stream_broken');
  }
  yield* stop();
  const counted = messagesUsage(usage);
  yield { type: 'message_delta', delta: { stop_reason: stopReasonFor(finishReason), stop_sequence: null }, usage: counted };
  yield { type: 'message_stop' };
}
