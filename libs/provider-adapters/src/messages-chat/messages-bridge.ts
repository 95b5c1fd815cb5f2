import { Readable } from 'node:stream';
import type { ProviderAnswer } from '../lib/provider-adapter';
import { messagesEventStream, readSseEvents } from '../lib/sse';
import { readAll } from '../lib/upstream-http';
import { toMessagesAnswer } from './chat-to-messages.answer';
import { toMessagesEvents } from './chat-to-messages.stream';

export { toChatRequest as messagesToChatRequest } from './messages-to-chat.request';

// A whole translated answer is read before translating it; the largest outputs stay well below this.
const MAX_ANSWER_BYTES = 32 * 1_048_576;

/**
 * A chat completion answer (JSON or stream) as the Anthropic Messages answer to the same call,
 * under `model` (the alias the client named): streams event by event as chunks arrive.
 */
export function chatAnswerAsMessages(answer: ProviderAnswer, model: string, streamed: boolean): ProviderAnswer {
  if (streamed) {
    return { ...answer, contentType: 'text/event-stream; charset=utf-8', body: messagesEventStream(toMessagesEvents(readSseEvents(answer.body), model)) };
  }
  async function* whole(): AsyncGenerator<Buffer> {
    const text = (await readAll(answer.body, MAX_ANSWER_BYTES)).toString('utf8');
    yield Buffer.from(JSON.stringify(toMessagesAnswer(text, model)));
  }
  return { ...answer, contentType: 'application/json', body: Readable.from(whole(), { objectMode: false }) };
}
