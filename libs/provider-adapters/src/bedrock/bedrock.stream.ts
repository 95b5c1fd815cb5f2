import { ProviderError } from '../lib/provider-error';
import { chatCompletionId, openAiUsage, finishReasonFor, type ConverseUsage } from './bedrock.converse';
import type { BedrockEvent } from './bedrock.event-stream';

interface Delta {
  text?: string;
  toolUse?: { input?: string };
  reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
}

/**
 * ConverseStream's events as OpenAI-format chat.completion.chunk objects: the role first, text,
 * reasoning (`reasoning_content`, then the signature as a thinking block) and tool call deltas
 * (id and name from contentBlockStart, the arguments as they arrive), the finish reason from
 * messageStop, then (when asked) the usage from metadata. A stream that ends without messageStop
 * throws the 502 of a broken stream.
 */
export async function* toChatCompletionChunks(events: AsyncIterable<BedrockEvent>, model: string, created: number, includeUsage: boolean): AsyncGenerator<Record<string, unknown>> {
  const id = chatCompletionId();
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  // contentBlockIndex → the OpenAI-format index of its tool call.
  const toolCalls = new Map<number, number>();
  let stopped = false;
  let usage: ConverseUsage | undefined;
  for await (const { type, payload } of events) {
    const blockIndex = typeof payload['contentBlockIndex'] === 'number' ? payload['contentBlockIndex'] : 0;
    if (type === 'messageStart') {
      yield chunk({ role: 'assistant', content: '' });
    } else if (type === 'contentBlockStart') {
      const toolUse = (payload['start'] as { toolUse?: { toolUseId?: unknown; name?: unknown } } | undefined)?.toolUse;
      if (toolUse && typeof toolUse.toolUseId === 'string' && typeof toolUse.name === 'string') {
        const index = toolCalls.size;
        toolCalls.set(blockIndex, index);
        yield chunk({ tool_calls: [{ index, id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: '' } }] });
      }
    } else if (type === 'contentBlockDelta') {
      const delta = (payload['delta'] ?? {}) as Delta;
      if (typeof delta.text === 'string') yield chunk({ content: delta.text });
      if (typeof delta.toolUse?.input === 'string') yield chunk({ tool_calls: [{ index: toolCalls.get(blockIndex) ?? 0, function: { arguments: delta.toolUse.input } }] });
      const reasoning = delta.reasoningContent;
      if (typeof reasoning?.text === 'string') yield chunk({ reasoning_content: reasoning.text });
      if (typeof reasoning?.signature === 'string') yield chunk({ thinking_blocks: [{ type: 'thinking', thinking: '', signature: reasoning.signature }] });
      if (typeof reasoning?.redactedContent === 'string') yield chunk({ thinking_blocks: [{ type: 'redacted_thinking', data: reasoning.redactedContent }] });
    } else if (type === 'messageStop') {
      stopped = true;
      yield chunk({}, finishReasonFor(typeof payload['stopReason'] === 'string' ? payload['stopReason'] : 'end_turn'));
    } else if (type === 'metadata') {
      usage = (payload['usage'] ?? undefined) as ConverseUsage | undefined;
    }
  }
  if (!stopped) throw new ProviderError(502, 'api_connection_error', 'The Bedrock stream ended before the answer did.', 'upstream_stream_broken');
  if (includeUsage) yield { id, object: 'chat.completion.chunk', created, model, choices: [], usage: openAiUsage(usage) };
}

/**
 * InvokeModelWithResponseStream's `chunk` events for Claude (each `bytes` a base64 Anthropic
 * stream event) as the Server-Sent Events Anthropic's own API sends: `event: <type>` and the
 * event as `data`, Bedrock's invocation metrics left out.
 */
export async function* toAnthropicSse(events: AsyncIterable<BedrockEvent>): AsyncGenerator<string> {
  for await (const { type, payload } of events) {
    if (type !== 'chunk' || typeof payload['bytes'] !== 'string') continue;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(Buffer.from(payload['bytes'], 'base64').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new ProviderError(502, 'server_error', 'The Bedrock stream sent a chunk that is not a JSON event.', 'upstream_stream_broken');
    }
    delete event['amazon-bedrock-invocationMetrics'];
    yield `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`;
  }
}
