import type { ProviderAnswer } from '../lib/provider-adapter';
import { translatedChatAnswer } from '../lib/chat-answer-translation';
import { toMessagesAnswer } from './chat-to-messages.answer';
import { ChatToMessagesStream, type MessagesEvent } from './chat-to-messages.stream';

export { toChatRequest as messagesToChatRequest } from './messages-to-chat.request';

/**
 * A chat completion answer (JSON or stream) as the Anthropic Messages answer to the same call,
 * under `model` (the alias the client named): a stream translated as each piece of it arrives.
 */
export function chatAnswerAsMessages(answer: ProviderAnswer, model: string, streamed: boolean): ProviderAnswer {
  return translatedChatAnswer(answer, streamed, {
    whole: (text) => toMessagesAnswer(text, model),
    stream: () => new ChatToMessagesStream(model),
    frame: messagesFrame,
  });
}

/** Server-Sent Events as Anthropic writes them: the event's type on its `event:` line too. */
function messagesFrame(event: MessagesEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
