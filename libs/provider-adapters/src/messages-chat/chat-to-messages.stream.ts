import { ProviderError } from '../lib/provider-error';
import { citationsOf, messageId, messagesUsage, stopReasonFor, webSearchBlocks } from './chat-to-messages.answer';
import { parseChatChunk, type ChatUsage } from '../lib/chat.wire';
import type { ChatStreamTranslator } from '../lib/chat-answer-translation';

/** One Anthropic stream event (`type` names it, as its `event:` line does). */
export type MessagesEvent = { type: string } & Record<string, unknown>;

type OpenBlock = { kind: 'thinking' | 'text' | 'search' } | { kind: 'tool'; chatIndex: number };

/**
 * OpenAI chat completion chunks as Anthropic Messages stream events, one chunk at a time as they
 * arrive (never buffered): message_start and a ping first; reasoning deltas as a thinking block,
 * content as a text block, each tool call as a tool_use block with input_json_delta, each block
 * stopped before the next starts; at the end message_delta with the stop reason and the usage
 * (the gateway always asks the chat stream for it), then message_stop. An error the upstream
 * sent in its stream, or a stream that ends before its finish reason, throws ProviderError.
 * Synchronous, so that a network chunk of several events is translated in one go.
 */
export class ChatToMessagesStream implements ChatStreamTranslator<MessagesEvent> {
  private started = false;
  private done = false;
  private index = -1;
  private open: OpenBlock | undefined;
  private finishReason: string | null | undefined;
  private usage: ChatUsage | null | undefined;
  /** The chat message's content so far: its annotations' indices count from its start. */
  private text = '';

  constructor(private readonly model: string) {}

  /** The events for one chat stream event (its `data`). */
  push(data: string): MessagesEvent[] {
    if (this.done) return [];
    if (data === '[DONE]') {
      this.done = true;
      return [];
    }
    const chunk = parseChatChunk(data);
    const events: MessagesEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push(
        {
          type: 'message_start',
          message: {
            id: messageId(chunk.id),
            type: 'message',
            role: 'assistant',
            model: this.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0 },
          },
        },
        { type: 'ping' },
      );
    }
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    const delta = choice.delta;
    if (delta?.reasoning_content) {
      if (this.open?.kind !== 'thinking') this.start(events, { kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
      events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'thinking_delta', thinking: delta.reasoning_content } });
    }
    // Citations of the text so far go on its open block; a search the target ran is two whole blocks.
    if (delta?.annotations && this.open?.kind === 'text') {
      for (const citation of citationsOf(delta.annotations, this.text))
        events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'citations_delta', citation } });
    }
    for (const search of delta?.provider_specific_fields?.web_search_calls ?? []) {
      const [call, result] = webSearchBlocks(search) as [Record<string, unknown>, Record<string, unknown>];
      this.start(events, { kind: 'search' }, { ...call, input: {} });
      events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call['input']) } });
      this.start(events, { kind: 'search' }, result);
    }
    const text = delta?.content ?? delta?.refusal;
    if (text) {
      if (this.open?.kind !== 'text') this.start(events, { kind: 'text' }, { type: 'text', text: '' });
      events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'text_delta', text } });
      if (delta?.content) this.text += text;
    }
    for (const call of delta?.tool_calls ?? []) {
      if (this.open?.kind !== 'tool' || this.open.chatIndex !== call.index) {
        this.start(events, { kind: 'tool', chatIndex: call.index }, { type: 'tool_use', id: call.id ?? `toolu_${this.index + 1}`, name: call.function.name ?? '', input: {} });
      }
      if (call.function.arguments) events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'input_json_delta', partial_json: call.function.arguments } });
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** The closing events, once the chat stream ended. */
  end(): MessagesEvent[] {
    if (!this.started || this.finishReason === undefined) {
      throw new ProviderError(502, 'server_error', 'The upstream stream ended before its answer was complete.', 'upstream_stream_broken');
    }
    const events: MessagesEvent[] = [];
    this.stop(events);
    events.push(
      { type: 'message_delta', delta: { stop_reason: stopReasonFor(this.finishReason), stop_sequence: null }, usage: messagesUsage(this.usage) },
      { type: 'message_stop' },
    );
    return events;
  }

  private start(events: MessagesEvent[], block: OpenBlock, contentBlock: Record<string, unknown>): void {
    this.stop(events);
    this.index++;
    this.open = block;
    events.push({ type: 'content_block_start', index: this.index, content_block: contentBlock });
  }

  private stop(events: MessagesEvent[]): void {
    if (this.open) events.push({ type: 'content_block_stop', index: this.index });
    this.open = undefined;
  }
}
