import type { EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../lib/provider-error';
import { cohereStreamEvent, type CohereChatResponse, type CohereUsage } from './cohere.wire';

// Cohere's finish reasons in OpenAI-format's words.
const FINISH_REASONS: Record<string, string> = { COMPLETE: 'stop', STOP_SEQUENCE: 'stop', MAX_TOKENS: 'length', TOOL_CALL: 'tool_calls', ERROR: 'stop', TIMEOUT: 'stop' };

export function finishReasonOf(reason: string | undefined): string | null {
  return reason === undefined ? null : (FINISH_REASONS[reason] ?? 'stop');
}

/** OpenAI-format usage from Cohere's: billed units (what Cohere charges), else the tokens the model saw. */
export function openAiUsage(usage: CohereUsage | undefined): Record<string, number> {
  const prompt = usage?.billed_units?.input_tokens ?? usage?.tokens?.input_tokens ?? 0;
  const completion = usage?.billed_units?.output_tokens ?? usage?.tokens?.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A v2 chat answer as a chat completion. */
export function toChatCompletion(answer: CohereChatResponse, model: string, created: number): Record<string, unknown> {
  const text = (answer.message.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('');
  const thinking = (answer.message.content ?? [])
    .filter((block) => block.type === 'thinking')
    .map((block) => block.thinking ?? '')
    .join('');
  const toolCalls = answer.message.tool_calls ?? [];
  return {
    id: `chatcmpl-${answer.id ?? created}`,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          ...(thinking !== '' ? { reasoning_content: thinking } : {}),
          ...(toolCalls.length > 0
            ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments ?? '{}' } })) }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(answer.finish_reason),
      },
    ],
    usage: openAiUsage(answer.usage),
  };
}

/**
 * A v2 chat stream (message-start, content-delta, tool-call-start/-delta, message-end…) as
 * chat completion chunks, event by event; the usage chunk at the end when asked for.
 */
export async function* toChatCompletionChunks(
  events: AsyncIterable<EventSourceMessage>,
  model: string,
  created: number,
  includeUsage: boolean,
): AsyncGenerator<Record<string, unknown>> {
  let id = `chatcmpl-${created}`;
  let toolCalls = -1;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  for await (const message of events) {
    let parsed: ReturnType<typeof cohereStreamEvent.safeParse>;
    try {
      parsed = cohereStreamEvent.safeParse(JSON.parse(message.data));
    } catch {
      throw new ProviderError(502, 'server_error', 'The Cohere stream sent an event that is not JSON.', 'upstream_stream_broken');
    }
    if (!parsed.success) throw new ProviderError(502, 'server_error', 'The Cohere stream sent an event of an unknown shape.', 'upstream_stream_broken');
    const event = parsed.data;
    const delta = event.delta?.message;
    const content = delta?.content && !Array.isArray(delta.content) ? delta.content : undefined;
    const call = delta?.tool_calls && !Array.isArray(delta.tool_calls) ? delta.tool_calls : undefined;
    switch (event.type) {
      case 'message-start':
        if (event.id) id = `chatcmpl-${event.id}`;
        yield chunk({ role: 'assistant', content: '' });
        break;
      case 'content-delta':
        if (content?.text !== undefined) yield chunk({ content: content.text });
        else if (content?.thinking !== undefined) yield chunk({ reasoning_content: content.thinking });
        break;
      case 'tool-call-start':
        toolCalls++;
        yield chunk({ tool_calls: [{ index: toolCalls, id: call?.id, type: 'function', function: { name: call?.function.name, arguments: call?.function.arguments ?? '' } }] });
        break;
      case 'tool-call-delta':
        yield chunk({ tool_calls: [{ index: toolCalls, function: { arguments: call?.function.arguments ?? '' } }] });
        break;
      case 'message-end':
        if (event.delta?.error) throw new ProviderError(502, 'server_error', event.delta.error, 'upstream_stream_error');
        yield chunk({}, finishReasonOf(event.delta?.finish_reason) ?? 'stop');
        if (includeUsage) yield { id, object: 'chat.completion.chunk', created, model, choices: [], usage: openAiUsage(event.delta?.usage) };
        break;
      default:
        // content-start, content-end, tool-plan-delta, tool-call-end, citations: nothing for OpenAI-format.
        break;
    }
  }
}
