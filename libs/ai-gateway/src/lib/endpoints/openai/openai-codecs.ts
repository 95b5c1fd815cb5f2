import { chatAnswerAsCompletion, completionsToChatRequest, type ProviderError, type ProviderOperation } from '@arbor/provider-adapters';
import { CHAT_ANSWER_TEXT, CHAT_TEXT, COMPLETIONS_TEXT, EMBEDDINGS_TEXT } from './chat-text';
import { usageOfJsonAnswer, withUsageCost } from '../../calls/usage';
import { openAiError } from '../../gateway-errors';
import { estimatePromptUsage, estimateStreamedUsage } from '../../spend/usage-estimate';
import type { EndpointCodec, RenderedError } from '../endpoint-codec';
import { StreamUsageTap } from './openai-stream-tap';

/** Any error in OpenAI's envelope {"error":{message,type,param,code}}, so that the official SDKs raise their matching error classes. */
export function renderOpenAiError(exception: unknown): RenderedError {
  const error = openAiError(exception);
  return { status: error.status, headers: error.headers, body: error.toBody() };
}

/**
 * OpenAI's JSON-in, JSON-or-SSE-out endpoints: the answer passes on as the upstream sent it, a
 * stream's usage always asked for (so that spend is right) and removed again when the client did
 * not ask for it.
 */
function openAiCodec(name: string, operation: ProviderOperation, description: string, path: string, streams: boolean, callTypes: readonly string[]): EndpointCodec {
  return {
    name,
    operation,
    description,
    callTypes,
    // With and without `/v1`, as the official SDKs and LiteLLM clients call them.
    paths: [`/v1${path}`, path],
    streamed: (body) => streams && body['stream'] === true,
    forwardedHeaders: () => undefined,
    prepare: (upstreamBody, params, streamed) => {
      if (!streamed || !params.has('stream_options')) return;
      const options = typeof upstreamBody['stream_options'] === 'object' && upstreamBody['stream_options'] !== null ? upstreamBody['stream_options'] : {};
      upstreamBody['stream_options'] = { ...options, include_usage: true };
    },
    usageOfAnswer: usageOfJsonAnswer,
    // OpenRouter's clients read a call's cost from `usage.cost`; the headers carry it too. Not on
    // embeddings, whose answers run to megabytes that would be copied for it.
    ...(streams ? { withCost: withUsageCost } : {}),
    streamTap: (body, settings) => {
      const options = body['stream_options'] as { include_usage?: unknown } | undefined;
      return new StreamUsageTap(options?.include_usage === true || settings.alwaysIncludeStreamUsage);
    },
    estimateUsage: (body, streamed) => (streamed ? estimateStreamedUsage(body, streamed) : estimatePromptUsage(body)),
    renderError: renderOpenAiError,
    streamErrorEvent: (error: ProviderError) => `data: ${JSON.stringify(error.toBody())}\n\n`,
  };
}

export const OPENAI_CHAT: EndpointCodec = {
  ...openAiCodec('openai-chat', 'chat', 'chat completions', '/chat/completions', true, ['completion', 'acompletion']),
  requestText: CHAT_TEXT,
  answerText: CHAT_ANSWER_TEXT,
};
/**
 * Completions: passed through where the provider has the endpoint, bridged through chat
 * completions everywhere else (the prompt as one user message, the answer's text as `choices[].text`).
 */
export const OPENAI_COMPLETIONS: EndpointCodec = {
  ...openAiCodec('openai-completions', 'completions', 'completions', '/completions', true, ['text_completion', 'atext_completion']),
  requestText: COMPLETIONS_TEXT,
  bridge: { via: OPENAI_CHAT, request: completionsToChatRequest, answer: chatAnswerAsCompletion },
};
export const OPENAI_EMBEDDINGS: EndpointCodec = {
  ...openAiCodec('openai-embeddings', 'embeddings', 'embeddings', '/embeddings', false, ['embedding', 'aembedding']),
  requestText: EMBEDDINGS_TEXT,
};
