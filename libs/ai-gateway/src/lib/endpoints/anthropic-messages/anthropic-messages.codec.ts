import { chatAnswerAsMessages, messagesToChatRequest } from '@arbor/provider-adapters';
import { MESSAGES_ANSWER_TEXT, MESSAGES_TEXT } from './messages-text';
import { lastObjectNamed } from '../../calls/usage';
import { estimatePromptUsage, estimateStreamedUsage } from '../../spend/usage-estimate';
import type { EndpointCodec } from '../endpoint-codec';
import { OPENAI_CHAT } from '../openai/openai-codecs';
import { messagesErrorEvent, renderMessagesError } from './messages-errors';
import { MessagesStreamTap } from './messages-stream-tap';
import { usageOfMessages } from './messages-usage';

/** The request headers of Anthropic's API a deployment serving messages natively gets from the client. */
const FORWARDED_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

/** A Messages request as chat, for counting its prompt; a request the bridge cannot read counts nothing. */
function asChat(body: Record<string, unknown>): Record<string, unknown> {
  try {
    return messagesToChatRequest(body);
  } catch {
    return {};
  }
}

/**
 * Anthropic's Messages API (`POST /v1/messages`, Anthropic-format): passed through to deployments that
 * serve messages (Anthropic), bridged through chat completions to every other. Errors in the
 * envelope that is OpenAI-format's and Anthropic-format's at once; a stream broken off ends with an `error` event.
 */
export const ANTHROPIC_MESSAGES: EndpointCodec = {
  requestText: MESSAGES_TEXT,
  answerText: MESSAGES_ANSWER_TEXT,
  name: 'anthropic-messages',
  operation: 'messages',
  description: 'Anthropic messages',
  callTypes: ['anthropic_messages'],
  paths: ['/v1/messages'],
  streamed: (body) => body['stream'] === true,
  forwardedHeaders: (headers) => {
    const forwarded: Record<string, string | string[] | undefined> = {};
    for (const name of FORWARDED_HEADERS) if (headers[name] !== undefined) forwarded[name] = headers[name];
    return forwarded;
  },
  // Anthropic's streams always carry their usage.
  prepare: () => undefined,
  usageOfAnswer: (body) => usageOfMessages(lastObjectNamed(body, 'usage')),
  streamTap: () => new MessagesStreamTap(),
  estimateUsage: (body, streamed) => (streamed ? estimateStreamedUsage(asChat(body), streamed) : estimatePromptUsage(asChat(body))),
  renderError: renderMessagesError,
  streamErrorEvent: messagesErrorEvent,
  bridge: {
    via: OPENAI_CHAT,
    request: messagesToChatRequest,
    answer: (answer, body, streamed) => chatAnswerAsMessages(answer, String(body['model']), streamed),
  },
};
