import { translatedChatAnswer } from '../lib/chat-answer-translation';
import type { ProviderAnswer } from '../lib/provider-adapter';
import { toResponseObject } from './chat-to-responses.answer';
import { ChatToResponsesStream, type ResponsesEvent } from './chat-to-responses.stream';

export { toChatRequest as responsesToChatRequest, type BridgeOptions } from './responses-to-chat.request';
export { itemId, responseShell } from './chat-to-responses.answer';
export { chatAnswerAsCompaction, compactToChatRequest } from './compaction';
export { truncatedForContext } from './truncation';
export type { ResponseObject, OutputItem, ResponsesUsage } from './responses.wire';
export type { ResponsesEvent } from './chat-to-responses.stream';

/**
 * A chat completion answer (JSON or stream) as the Responses API's answer to `request` (its
 * `model` the alias the client named): a stream translated event by event as it arrives.
 */
export function chatAnswerAsResponse(answer: ProviderAnswer, request: Record<string, unknown>, streamed: boolean): ProviderAnswer {
  return translatedChatAnswer(answer, streamed, {
    whole: (text) => toResponseObject(text, request),
    stream: () => new ChatToResponsesStream(request),
    frame: responsesFrame,
  });
}

/** Server-Sent Events as OpenAI writes the Responses stream: the event's type on its `event:` line too. */
export function responsesFrame(event: ResponsesEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
