import type { ChatStreamTranslator } from '../lib/chat-answer-translation';
import { parseChatChunk, type ChatUsage, type WebSearchCall } from '../lib/chat.wire';
import { ProviderError } from '../lib/provider-error';
import {
  customToolCallItem,
  endOf,
  functionCallItem,
  itemId,
  messageItem,
  outputAnnotations,
  reasoningItem,
  responseShell,
  responsesUsage,
  webSearchCallItem,
} from './chat-to-responses.answer';
import { customInput, ToolNames, type ResponsesTool } from './tool-names';
import type { OutputItem, ResponseObject } from './responses.wire';

/** One Responses stream event (`type` names it, as its `event:` line does). */
export type ResponsesEvent = { type: string; sequence_number: number } & Record<string, unknown>;

type OpenItem =
  | { kind: 'reasoning'; id: string; text: string }
  | { kind: 'message'; id: string; text: string; refusal: boolean; annotations: Record<string, unknown>[]; offset: number }
  | { kind: 'function_call'; id: string; chatIndex: number; callId: string; tool: ResponsesTool; arguments: string };

/**
 * OpenAI chat completion chunks as the Responses API's stream events, one chunk at a time as they
 * arrive: response.created and response.in_progress first; reasoning deltas as a reasoning item
 * (its summary text), content as a message item (output_text, or refusal), each tool call as a
 * function_call item with its argument deltas; each item done before the next is added; at the end
 * response.completed (or response.incomplete) carrying the whole response and its usage (the
 * gateway always asks the chat stream for it). Every event numbered (`sequence_number`). An error
 * the upstream sent in its stream, or a stream that ends before its finish reason, throws
 * ProviderError. Synchronous, so that a network chunk of several events is translated in one go.
 */
export class ChatToResponsesStream implements ChatStreamTranslator<ResponsesEvent> {
  private readonly response: ResponseObject;
  private readonly tools: ToolNames;
  private sequence = 0;
  private started = false;
  private done = false;
  private open: OpenItem | undefined;
  private finishReason: string | null | undefined;
  private usage: ChatUsage | null | undefined;
  /** How much of the chat message's content has streamed: chat's annotation indices count from its start. */
  private contentLength = 0;

  constructor(request: Record<string, unknown>) {
    this.response = responseShell(request, itemId('resp'), Math.floor(Date.now() / 1000));
    this.tools = new ToolNames(request);
  }

  push(data: string): ResponsesEvent[] {
    if (this.done) return [];
    if (data === '[DONE]') {
      this.done = true;
      return [];
    }
    const chunk = parseChatChunk(data);
    const events: ResponsesEvent[] = [];
    if (!this.started) {
      this.started = true;
      if (chunk.created !== undefined) this.response['created_at'] = chunk.created;
      // Copies: the events are written after this chunk's items were added to the response.
      this.emit(events, 'response.created', { response: { ...this.response, output: [] } });
      this.emit(events, 'response.in_progress', { response: { ...this.response, output: [] } });
    }
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    const delta = choice.delta;
    if (delta?.reasoning_content) this.reasoning(events, delta.reasoning_content);
    for (const search of delta?.provider_specific_fields?.web_search_calls ?? []) this.webSearch(events, search);
    if (delta?.content) this.text(events, delta.content, false);
    else if (delta?.refusal) this.text(events, delta.refusal, true);
    if (delta?.annotations) this.annotate(events, delta.annotations);
    for (const call of delta?.tool_calls ?? []) {
      let open = this.open;
      if (open?.kind !== 'function_call' || open.chatIndex !== call.index) {
        const tool = this.tools.of(call.function.name ?? '');
        open = { kind: 'function_call', id: itemId(tool.custom ? 'ctc' : 'fc'), chatIndex: call.index, callId: call.id ?? itemId('call'), tool, arguments: '' };
        const item = tool.custom
          ? customToolCallItem(open.id, open.callId, tool.name, '', 'in_progress', tool.namespace)
          : functionCallItem(open.id, open.callId, tool.name, '', 'in_progress', tool.namespace);
        this.add(events, open, item);
      }
      const args = call.function.arguments;
      if (args) {
        open.arguments += args;
        // A custom tool's text is inside the JSON arguments: it goes out whole when the call is done.
        if (!open.tool.custom) this.emit(events, 'response.function_call_arguments.delta', { item_id: open.id, output_index: this.index, delta: args });
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  end(): ResponsesEvent[] {
    if (!this.started || this.finishReason === undefined) {
      throw new ProviderError(502, 'server_error', 'The upstream stream ended before its answer was complete.', 'upstream_stream_broken');
    }
    const events: ResponsesEvent[] = [];
    this.close(events);
    const end = endOf(this.finishReason);
    Object.assign(this.response, end, { usage: responsesUsage(this.usage) });
    this.emit(events, end.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: this.response });
    return events;
  }

  private get index(): number {
    return this.response.output.length - 1;
  }

  private reasoning(events: ResponsesEvent[], delta: string): void {
    let open = this.open;
    if (open?.kind !== 'reasoning') {
      open = { kind: 'reasoning', id: itemId('rs'), text: '' };
      this.add(events, open, { id: open.id, type: 'reasoning', summary: [] });
      this.emit(events, 'response.reasoning_summary_part.added', { item_id: open.id, output_index: this.index, summary_index: 0, part: { type: 'summary_text', text: '' } });
    }
    open.text += delta;
    this.emit(events, 'response.reasoning_summary_text.delta', { item_id: open.id, output_index: this.index, summary_index: 0, delta });
  }

  /** A web search the provider ran (it is over when the chat stream reports it): its item, added and done. */
  private webSearch(events: ResponsesEvent[], search: WebSearchCall): void {
    const item = webSearchCallItem(search);
    this.close(events);
    this.response.output.push({ ...item, status: 'in_progress' });
    const at = { item_id: item.id, output_index: this.index };
    this.emit(events, 'response.output_item.added', { output_index: this.index, item: { ...item, status: 'in_progress' } });
    this.emit(events, 'response.web_search_call.in_progress', at);
    this.emit(events, 'response.web_search_call.searching', at);
    this.emit(events, 'response.web_search_call.completed', at);
    this.response.output[this.index] = item;
    this.emit(events, 'response.output_item.done', { output_index: this.index, item });
  }

  /** Citations of the text streamed so far, on the open message (indices from where that message began). */
  private annotate(events: ResponsesEvent[], annotations: readonly unknown[]): void {
    const open = this.open;
    if (open?.kind !== 'message' || open.refusal) return;
    for (const annotation of outputAnnotations(annotations, open.offset)) {
      open.annotations.push(annotation);
      this.emit(events, 'response.output_text.annotation.added', {
        item_id: open.id,
        output_index: this.index,
        content_index: 0,
        annotation_index: open.annotations.length - 1,
        annotation,
      });
    }
  }

  private text(events: ResponsesEvent[], delta: string, refusal: boolean): void {
    let open = this.open;
    if (open?.kind !== 'message') {
      open = { kind: 'message', id: itemId('msg'), text: '', refusal, annotations: [], offset: this.contentLength };
      this.add(events, open, { id: open.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] });
      const part = refusal ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [], logprobs: [] };
      this.emit(events, 'response.content_part.added', { item_id: open.id, output_index: this.index, content_index: 0, part });
    }
    open.text += delta;
    if (!refusal) this.contentLength += delta.length;
    if (open.refusal) this.emit(events, 'response.refusal.delta', { item_id: open.id, output_index: this.index, content_index: 0, delta });
    else this.emit(events, 'response.output_text.delta', { item_id: open.id, output_index: this.index, content_index: 0, delta, logprobs: [] });
  }

  /** An item opens: the one before it is done first. */
  private add(events: ResponsesEvent[], open: OpenItem, item: OutputItem): void {
    this.close(events);
    this.open = open;
    this.response.output.push(item);
    this.emit(events, 'response.output_item.added', { output_index: this.index, item });
  }

  private close(events: ResponsesEvent[]): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const at = { item_id: open.id, output_index: this.index };
    let item: OutputItem;
    if (open.kind === 'reasoning') {
      item = reasoningItem(open.id, open.text);
      this.emit(events, 'response.reasoning_summary_text.done', { ...at, summary_index: 0, text: open.text });
      this.emit(events, 'response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text: open.text } });
    } else if (open.kind === 'message') {
      item = messageItem(open.id, open.text, open.refusal, 'completed', open.annotations);
      if (open.refusal) this.emit(events, 'response.refusal.done', { ...at, content_index: 0, refusal: open.text });
      else this.emit(events, 'response.output_text.done', { ...at, content_index: 0, text: open.text, logprobs: [] });
      this.emit(events, 'response.content_part.done', { ...at, content_index: 0, part: (item['content'] as unknown[])[0] });
    } else if (open.tool.custom) {
      const input = customInput(open.arguments);
      item = customToolCallItem(open.id, open.callId, open.tool.name, input, 'completed', open.tool.namespace);
      this.emit(events, 'response.custom_tool_call_input.delta', { ...at, delta: input });
      this.emit(events, 'response.custom_tool_call_input.done', { ...at, input });
    } else {
      item = functionCallItem(open.id, open.callId, open.tool.name, open.arguments, 'completed', open.tool.namespace);
      this.emit(events, 'response.function_call_arguments.done', { ...at, name: open.tool.name, arguments: open.arguments });
    }
    this.response.output[this.index] = item;
    this.emit(events, 'response.output_item.done', { output_index: this.index, item });
  }

  private emit(events: ResponsesEvent[], type: string, data: Record<string, unknown>): void {
    events.push({ type, sequence_number: this.sequence++, ...data });
  }
}
