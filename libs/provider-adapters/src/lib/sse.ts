import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Readable } from 'node:stream';

/**
 * The events of an upstream Server-Sent Events body, in order (eventsource-parser does the
 * framing: multi-line data, comments, CRLF). For translating adapters that read a provider's own
 * stream; pass-through adapters never parse.
 */
export async function* readSseEvents(body: AsyncIterable<Buffer | string>): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) yield queue.shift() as EventSourceMessage;
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  while (queue.length > 0) yield queue.shift() as EventSourceMessage;
}

/**
 * OpenAI-format stream bytes from chunk objects: `data: <json>\n\n` each, then `data: [DONE]\n\n`.
 * An error thrown by `chunks` destroys the stream with it (the gateway turns a ProviderError into
 * a final error event).
 */
export function openAiEventStream(chunks: AsyncIterable<unknown>): Readable {
  async function* frames(): AsyncGenerator<string> {
    for await (const chunk of chunks) yield `data: ${JSON.stringify(chunk)}\n\n`;
    yield 'data: [DONE]\n\n';
  }
  return Readable.from(frames(), { objectMode: false });
}

/** A JSON document as a one-chunk body (translated non-streamed answers). */
export function jsonBody(value: unknown): Readable {
  return Readable.from([Buffer.from(JSON.stringify(value))], { objectMode: false });
}
