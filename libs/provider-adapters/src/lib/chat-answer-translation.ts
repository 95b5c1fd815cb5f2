import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ProviderAnswer } from './provider-adapter';
import { readAll } from './upstream-http';

// A whole translated answer is read before translating it; the largest outputs stay well below this.
const MAX_ANSWER_BYTES = 32 * 1_048_576;

/** Translates a chat completion stream into another family's events, one chat event at a time. */
export interface ChatStreamTranslator<Event> {
  /** The events for one chat stream event (its `data`). */
  push(data: string): Event[];
  /** The closing events, once the chat stream ended. */
  end(): Event[];
}

/** How a chat completion answer becomes another family's answer to the same call. */
export interface ChatAnswerTranslation<Event> {
  /** A whole chat completion (its JSON text) as the family's JSON answer. */
  whole(text: string): unknown;
  /** A translator for one streamed answer. */
  stream(): ChatStreamTranslator<Event>;
  /** One event as the family writes it on the wire (Server-Sent Events). */
  frame(event: Event): string;
}

/**
 * A chat completion answer (JSON or stream) as another family's answer to the same call: a stream
 * translated as each piece of it arrives, a whole answer read and translated once.
 */
export function translatedChatAnswer<Event>(answer: ProviderAnswer, streamed: boolean, translation: ChatAnswerTranslation<Event>): ProviderAnswer {
  // The generators are the bodies: the gateway reads them as it reads an upstream's (no Node stream in between).
  if (streamed) return { ...answer, contentType: 'text/event-stream; charset=utf-8', body: translatedChatStream(answer.body, translation.stream(), translation.frame) };
  async function* whole(): AsyncGenerator<Buffer> {
    const text = (await readAll(answer.body, MAX_ANSWER_BYTES)).toString('utf8');
    yield Buffer.from(JSON.stringify(translation.whole(text)));
  }
  return { ...answer, contentType: 'application/json', body: whole() };
}

/**
 * Another family's Server-Sent Events from a chat stream: each piece of the upstream body (one or
 * more chat events, or part of one) read by eventsource-parser, translated, and written on as one
 * piece, so that the translation costs no more hops per event than passing the stream through.
 */
async function* translatedChatStream<Event>(
  body: AsyncIterable<Buffer | string>,
  translator: ChatStreamTranslator<Event>,
  frame: (event: Event) => string,
): AsyncGenerator<string> {
  const arrived: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => arrived.push(event) });
  const decoder = new TextDecoder();
  const frames = (events: Event[]): string => {
    let out = '';
    for (const event of events) out += frame(event);
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
