import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ProviderAnswer, ProviderCall } from '../lib/provider-adapter';
import { toChatRequest } from './messages-to-chat.request';
import { readAll } from '../lib/upstream-http';
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

// A whole translated answer is read before translating it; the largest outputs stay well below this.
const MAX_ANSWER_BYTES = 32 * 1_048_576;

/**
 * A chat completion answer (JSON or stream) as the Anthropic Messages answer to the same call,
 * under `model` (the alias the client named): a stream translated as each piece of it arrives.
 */
export function chatAnswerAsMessages(answer: ProviderAnswer, model: string, streamed: boolean): ProviderAnswer {
  // The generators are the bodies: the gateway reads them as it reads an upstream's (no Node stream in between).
  if (streamed) return { ...answer, contentType: 'text/event-stream; charset=utf-8', body: messagesFrames(answer.body, model) };
  async function* whole(): AsyncGenerator<Buffer> {
    const text = (await readAll(answer.body, MAX_ANSWER_BYTES)).toString('utf8');
    yield Buffer.from(JSON.stringify(toMessagesAnswer(text, model)));
  }
  return { ...answer, contentType: 'application/json', body: whole() };
}

/**
 * The Messages stream of a chat stream: each piece of the upstream body (one or more chat events,
 * or part of one) read by eventsource-parser, translated, and written on as one piece, so that
 * the translation costs no more hops per event than passing the stream through.
 */
async function* messagesFrames(body: AsyncIterable<Buffer | string>, model: string): AsyncGenerator<string> {
  const translator = new ChatToMessagesStream(model);
  const arrived: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => arrived.push(event) });
  const decoder = new TextDecoder();
  const frames = (events: MessagesEvent[]): string => {
    let out = '';
    for (const event of events) out += `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    return out;
  };
  const translate = (): string => {
    let out = '';
    for (const event of arrived) out += frames(translator.push(event.data));
    arrived.length = 0;
    return out;
  };
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    const out = translate();
    if (out !== '') yield out;
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  yield translate() + frames(translator.end());
}
