import type { EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../lib/provider-error';
import { geminiErrorFrom } from './gemini.error';
import { chatCompletionId, groundingOf, openAiUsage, finishReasonFor, textOf, thoughtsOf, toolCallsOf, type GeminiUsage } from './gemini.response';
import { streamGenerateContentEvent } from './gemini.wire';

/**
 * streamGenerateContent?alt=sse events (each a whole GenerateContentResponse holding the next
 * piece) as OpenAI-format chat.completion.chunk objects: content and tool call deltas (the first of
 * each choice with the role), a finish_reason chunk per choice, then (when asked) the usage
 * chunk from the last usageMetadata. An error event or a broken connection throws ProviderError.
 */
export async function* toChatCompletionChunks(
  events: AsyncIterable<EventSourceMessage>,
  model: string,
  created: number,
  includeUsage: boolean,
): AsyncGenerator<Record<string, unknown>> {
  let id = chatCompletionId({});
  let answeringModel = model;
  let first = true;
  let usage: GeminiUsage | undefined;
  // Per choice: whether the role went out yet, and how many tool calls it has made.
  const choices = new Map<number, { started: boolean; toolCalls: number; text: string }>();
  const chunk = (index: number, delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: answeringModel,
    choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
  });

  try {
    for await (const event of events) {
      const parsed = streamGenerateContentEvent.safeParse(JSON.parse(event.data));
      if (!parsed.success) throw new ProviderError(502, 'server_error', 'The Gemini stream sent an event of an unknown shape.', 'upstream_stream_broken');
      const response = parsed.data;
      if (response.error) throw geminiErrorFrom(response.error, response.error.code ?? 500);
      if (first) {
        first = false;
        if (response.responseId) id = chatCompletionId(response);
        answeringModel = response.modelVersion ?? model;
      }
      usage = response.usageMetadata ?? usage;
      if (response.promptFeedback?.blockReason && !response.candidates?.length) {
        yield chunk(0, { role: 'assistant', content: '' }, 'content_filter');
        continue;
      }
      for (const [position, candidate] of (response.candidates ?? []).entries()) {
        const index = candidate.index ?? position;
        const state = choices.get(index) ?? { started: false, toolCalls: 0, text: '' };
        choices.set(index, state);
        const parts = candidate.content?.parts ?? [];
        const delta: Record<string, unknown> = state.started ? {} : { role: 'assistant' };
        const thoughts = thoughtsOf(parts);
        if (thoughts !== '') delta['reasoning_content'] = thoughts;
        const text = textOf(parts);
        if (text !== '' || !state.started) delta['content'] = text;
        const toolCalls = toolCallsOf(parts).map((call) => ({ index: state.toolCalls++, ...call }));
        if (toolCalls.length > 0) delta['tool_calls'] = toolCalls;
        if (Object.keys(delta).length > 0) yield chunk(index, delta);
        state.started = true;
        state.text += text;
        // Grounding (it comes with the last pieces) over all the text so far, after that text.
        if (candidate.groundingMetadata) {
          const { searches, annotations } = groundingOf(candidate.groundingMetadata, state.text);
          if (annotations.length > 0) yield chunk(index, { annotations });
          if (searches.length > 0) yield chunk(index, { provider_specific_fields: { web_search_calls: searches } });
        }
        if (candidate.finishReason) yield chunk(index, {}, finishReasonFor(candidate.finishReason, state.toolCalls > 0));
      }
    }
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(502, 'api_connection_error', 'The Gemini stream broke off before it finished.', 'upstream_stream_broken');
  }
  if (includeUsage) yield { id, object: 'chat.completion.chunk', created, model: answeringModel, choices: [], usage: openAiUsage(usage) };
}
