import type { EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../lib/provider-error';
import { anthropicError } from '../anthropic/anthropic.error';
import type { UrlCitation } from '../lib/chat.wire';
import type { ResponseFormatTool } from './chat-to-messages.request';
import { openAiUsage, finishReasonFor, thinkingBlockOf, urlCitationOf, webSearchCallOf, type AnthropicBlock, type AnthropicUsage } from './messages-to-chat.answer';
import { anthropicStreamEvent } from './messages.wire';

/**
 * Anthropic's stream events as OpenAI-format chat.completion.chunk objects: a first chunk with the
 * role, content and tool call deltas, a finish_reason chunk, then (when asked) the usage chunk.
 * `jsonTool`: the tool that carried the request's response_format, whose input streams as the
 * message content (the only content when it was forced) and whose call stops as any answer does.
 * An error event, a broken connection or a stream ending before message_stop throws ProviderError.
 */
export async function* toChatCompletionChunks(
  events: AsyncIterable<EventSourceMessage>,
  model: string,
  created: number,
  includeUsage: boolean,
  jsonTool?: ResponseFormatTool,
): AsyncGenerator<Record<string, unknown>> {
  let id = '';
  const usage: AnthropicUsage = {};
  // Anthropic numbers all content blocks; OpenAI-format numbers tool calls only.
  const toolIndexByBlock = new Map<number, number>();
  // The content block of the response_format tool's call, once it started.
  let jsonBlock: number | undefined;
  // The server's own tool calls (web search) by block, their input JSON as it arrives: not the client's tool calls.
  const serverCalls = new Map<number, { block: AnthropicBlock; json: string }>();
  // Text blocks with citations: where each began in the content, and the citations that arrived for it.
  const citedText = new Map<number, { start: number; citations: unknown[] }>();
  let contentLength = 0;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });

  try {
    for await (const sse of events) {
      const parsed = anthropicStreamEvent.safeParse(JSON.parse(sse.data));
      if (!parsed.success) throw new ProviderError(502, 'server_error', 'The Anthropic stream sent an event of an unknown shape.', 'upstream_stream_broken');
      const event = parsed.data;
      switch (event.type) {
        case 'message_start':
          id = event.message?.id ?? '';
          Object.assign(usage, event.message?.usage);
          yield chunk({ role: 'assistant', content: '' });
          break;
        case 'content_block_start': {
          const block = event.content_block;
          if (block?.type === 'tool_use' && jsonTool && block.name === jsonTool.name) {
            jsonBlock = event.index ?? 0;
          } else if (block?.type === 'server_tool_use') {
            serverCalls.set(event.index ?? 0, { block, json: '' });
          } else if (block?.type === 'web_search_tool_result') {
            const id = (block as { tool_use_id?: unknown }).tool_use_id;
            const call = [...serverCalls.values()].find((server) => server.block.id === id);
            const input = call ? parsedInput(call.json) : undefined;
            const search = webSearchCallOf(call ? { ...call.block, input } : undefined, block);
            yield chunk({ provider_specific_fields: { web_search_calls: [search] } });
          } else if (block?.type === 'tool_use') {
            const toolIndex = toolIndexByBlock.size;
            toolIndexByBlock.set(event.index ?? 0, toolIndex);
            yield chunk({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] });
          } else if (block?.type === 'text') {
            if (Array.isArray((block as { citations?: unknown }).citations)) citedText.set(event.index ?? 0, { start: contentLength, citations: [] });
            if (block.text && !jsonTool?.forced) {
              contentLength += block.text.length;
              yield chunk({ content: block.text });
            }
          } else if (block?.type === 'redacted_thinking') {
            yield chunk({ thinking_blocks: [thinkingBlockOf(block)] });
          } else if (block?.type === 'thinking' && block.thinking) {
            yield chunk({ reasoning_content: block.thinking, thinking_blocks: [thinkingBlockOf({ ...block, signature: '' })] });
          }
          break;
        }
        case 'content_block_delta': {
          const delta = event.delta;
          if (delta?.type === 'text_delta') {
            if (!jsonTool?.forced) {
              contentLength += (delta.text ?? '').length;
              yield chunk({ content: delta.text ?? '' });
            }
          } else if (delta?.type === 'input_json_delta' && jsonBlock !== undefined && (event.index ?? 0) === jsonBlock) {
            if (delta.partial_json) yield chunk({ content: delta.partial_json });
          } else if (delta?.type === 'citations_delta') citedText.get(event.index ?? 0)?.citations.push((delta as { citation?: unknown }).citation);
          // As LiteLLM streams them: thinking text and then its signature, each as a thinking_blocks delta to join.
          else if (delta?.type === 'thinking_delta') {
            const thinking = delta.thinking ?? '';
            yield chunk({ reasoning_content: thinking, thinking_blocks: [{ type: 'thinking', thinking, signature: '' }] });
          } else if (delta?.type === 'signature_delta') {
            yield chunk({ thinking_blocks: [{ type: 'thinking', thinking: '', signature: delta.signature ?? '' }] });
          } else if (delta?.type === 'input_json_delta' && delta.partial_json && serverCalls.has(event.index ?? 0)) {
            (serverCalls.get(event.index ?? 0) as { json: string }).json += delta.partial_json;
          } else if (delta?.type === 'input_json_delta' && delta.partial_json) {
            yield chunk({ tool_calls: [{ index: toolIndexByBlock.get(event.index ?? 0) ?? 0, function: { arguments: delta.partial_json } }] });
          }
          break;
        }
        case 'content_block_stop': {
          // A cited text block is whole: its citations cover what it said.
          const cited = citedText.get(event.index ?? 0);
          citedText.delete(event.index ?? 0);
          const annotations = (cited?.citations ?? [])
            .map((citation) => urlCitationOf(citation, cited?.start ?? 0, contentLength))
            .filter((found): found is UrlCitation => found !== undefined);
          if (annotations.length > 0) yield chunk({ annotations });
          break;
        }
        case 'message_delta':
          // Its usage is cumulative: it replaces what message_start said.
          Object.assign(usage, event.usage);
          yield chunk(
            {},
            finishReasonFor(event.delta?.stop_reason === 'tool_use' && jsonBlock !== undefined && toolIndexByBlock.size === 0 ? 'end_turn' : event.delta?.stop_reason),
          );
          break;
        case 'message_stop':
          if (includeUsage) yield { id, object: 'chat.completion.chunk', created, model, choices: [], usage: openAiUsage(usage) };
          return;
        case 'error':
          throw anthropicError(undefined, sse.data);
        // ping and event types added later carry nothing for OpenAI-format.
      }
    }
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    // Node's own errors may come from another realm (jest), so the message is read, not instanceof-checked.
    const reason = (error as { message?: unknown } | null)?.message;
    throw new ProviderError(502, 'server_error', `The Anthropic stream broke off: ${typeof reason === 'string' ? reason : String(error)}`, 'upstream_stream_broken');
  }
  throw new ProviderError(502, 'server_error', 'The Anthropic stream ended before message_stop.', 'upstream_stream_broken');
}

/** A server tool call's input JSON as it streamed; {} while incomplete or unreadable. */
function parsedInput(json: string): unknown {
  try {
    return json === '' ? {} : JSON.parse(json);
  } catch {
    return {};
  }
}
