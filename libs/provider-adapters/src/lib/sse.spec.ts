import { Readable } from 'node:stream';
import { openAiEventStream, readSseEvents } from './sse';

async function text(stream: Readable): Promise<string> {
  let result = '';
  for await (const chunk of stream) result += String(chunk);
  return result;
}

describe('server-sent events for translating adapters', () => {
  it('reads events split across chunks, with names, multi-line data and CRLF', async () => {
    const body = Readable.from(['event: message_start\r\ndata: {"a":', '1}\r\n\r\n: comment\n\ndata: line one\ndata: line two\n\n', 'data: tail']);
    const events = [];
    for await (const event of readSseEvents(body)) events.push({ event: event.event, data: event.data });
    expect(events).toEqual([
      { event: 'message_start', data: '{"a":1}' },
      { event: undefined, data: 'line one\nline two' },
    ]);
  });

  it('writes chunks as OpenAI-format frames and ends with [DONE]', async () => {
    async function* chunks() {
      yield { id: 1 };
      yield { id: 2 };
    }
    expect(await text(openAiEventStream(chunks()))).toBe('data: {"id":1}\n\ndata: {"id":2}\n\ndata: [DONE]\n\n');
  });

  it('ends the stream with the error a translation throws, without [DONE]', async () => {
    async function* chunks() {
      yield { id: 1 };
      throw new Error('upstream broke off');
    }
    await expect(text(openAiEventStream(chunks()))).rejects.toThrow('upstream broke off');
  });
});
