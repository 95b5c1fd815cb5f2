import type { ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { translatedChatAnswer } from '../lib/chat-answer-translation';
import { toChatRequest } from './messages-to-chat.request';
import { toMessagesAnswer } from './chat-to-messages.answer';
import { ChatToMessagesStream, type MessagesEvent } from './chat-to-messages.stream';

export { toChatRequest as messagesToChatRequest } from './messages-to-chat.request';

/**
 * A Messages call served by a provider's own chat operation, for a provider whose Messages
 * operation is native on some of its models only (Bedrock, Vertex AI, Azure AI Foundry on their
 * models that are not Claude): the request as chat, the answer (or stream) back as Messages.
 */
export async function messagesThroughChat(call: ProviderCall, chat: (call: ProviderCall) => Promise<ProviderAnswer>): Promise<ProviderAnswer> {
  const { body, deployment } = call;
  const stream = body['stream'] === true;
  const answer = await chat({ ...call, body: { ...toChatRequest(body), ...(stream ? { stream_options: { include_usage: true } } : {}) } });
  return chatAnswerAsMessages(answer, typeof body['model'] === 'string' ? body['model'] : deployment.model, stream);
}

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
