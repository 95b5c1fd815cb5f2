import { chatAnswerAsCompaction, chatAnswerAsResponse, compactToChatRequest, responsesToChatRequest, truncatedForContext, type ProviderError } from '@arbor/provider-adapters';
import { RESPONSES_ANSWER_TEXT, RESPONSES_TEXT } from './responses-text';
import { lastObjectNamed } from '../../calls/usage';
import { estimatePromptUsage, estimateStreamedUsage } from '../../spend/usage-estimate';
import type { EndpointCodec, StreamTap } from '../endpoint-codec';
import { OPENAI_CHAT, renderOpenAiError } from '../openai/openai-codecs';
import { ResponsesStreamTap } from './responses-stream-tap';
import { usageOfResponses } from './responses-usage';

/** A Responses request as chat messages, for counting its prompt when the client hung up before the usage came. */
function asChat(body: Record<string, unknown>): Record<string, unknown> {
  const messages: { role: string; content: string }[] = [];
  if (typeof body['instructions'] === 'string') messages.push({ role: 'system', content: body['instructions'] });
  const input = body['input'];
  if (input !== undefined) messages.push({ role: 'user', content: typeof input === 'string' ? input : JSON.stringify(input) });
  return { model: body['model'], messages };
}

/**
 * What ends a Responses stream the upstream broke off, as the API ends a failed one: the response
 * (as response.created announced it) failed, then the `error` event, numbered after the rest.
 */
function responsesErrorEvent(error: ProviderError, tap: StreamTap): string {
  const code = error.code ?? error.type;
  const seen = tap instanceof ResponsesStreamTap ? tap : undefined;
  const sequence = seen?.events ?? 0;
  const failed = seen?.started
    ? `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', sequence_number: sequence, response: { ...seen.started, status: 'failed', error: { code, message: error.message } } })}\n\n`
    : '';
  const next = failed === '' ? sequence : sequence + 1;
  return `${failed}event: error\ndata: ${JSON.stringify({ type: 'error', code, message: error.message, param: error.param, sequence_number: next })}\n\n`;
}

/**
 * OpenAI's Responses API (`POST /v1/responses`): passed through to deployments that serve it
 * natively (OpenAI and OpenAI-compatible servers), bridged through chat completions to every other
 * (both ways, streams event by event); its usage read from the response object or the stream's
 * final event; errors in OpenAI's envelope.
 */
export const OPENAI_RESPONSES: EndpointCodec = {
  requestText: RESPONSES_TEXT,
  answerText: RESPONSES_ANSWER_TEXT,
  name: 'openai-responses',
  operation: 'responses',
  description: 'Responses API',
  callTypes: ['responses', 'aresponses'],
  paths: ['/v1/responses', '/responses'],
  streamed: (body) => body['stream'] === true,
  forwardedHeaders: () => undefined,
  // The final event of a stream always carries the usage.
  prepare: () => undefined,
  usageOfAnswer: (body) => usageOfResponses(lastObjectNamed(body, 'usage')),
  streamTap: (_body, _settings, keepsFinal, ids) => new ResponsesStreamTap(keepsFinal, ids),
  estimateUsage: (body, streamed) => (streamed ? estimateStreamedUsage(asChat(body), streamed) : estimatePromptUsage(asChat(body))),
  renderError: renderOpenAiError,
  streamErrorEvent: responsesErrorEvent,
  bridge: {
    via: OPENAI_CHAT,
    request: responsesToChatRequest,
    answer: chatAnswerAsResponse,
    shorten: truncatedForContext,
  },
};

/**
 * `POST /v1/responses/compact`: a conversation compacted into its user messages and one
 * compaction item. Passed through to deployments that compact natively (OpenAI: the item is
 * OpenAI's encrypted state); bridged through chat completions to every other, where the model
 * writes a summary that the compaction item carries and the bridge reads back in a later turn.
 */
export const OPENAI_RESPONSES_COMPACT: EndpointCodec = {
  ...OPENAI_RESPONSES,
  name: 'openai-responses-compact',
  operation: 'responses_compact',
  description: 'Responses API compaction',
  paths: ['/v1/responses/compact', '/responses/compact'],
  streamed: () => false,
  bridge: {
    via: OPENAI_CHAT,
    request: compactToChatRequest,
    answer: (answer, body) => chatAnswerAsCompaction(answer, body),
  },
};
