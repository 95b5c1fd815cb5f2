import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { ProviderError } from '../lib/provider-error';
import { readBedrockEvents, type BedrockEvent } from './bedrock.event-stream';
import { toChatCompletionChunks } from './bedrock.stream';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const frame = (type: string, payload: unknown, kind: 'event' | 'exception' = 'event') =>
  Buffer.from(
    codec.encode({
      headers: { [kind === 'event' ? ':event-type' : ':exception-type']: { type: 'string', value: type }, ':message-type': { type: 'string', value: kind } },
      body: fromUtf8(JSON.stringify(payload)),
    }),
  );

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('Bedrock event streams', () => {
  it('reads frames however the network splits them', async () => {
    const bytes = Buffer.concat([frame('messageStart', { role: 'assistant' }), frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } })]);
    for (const size of [1, 7, bytes.length]) {
      expect(await all(readBedrockEvents(pieces(bytes, size)))).toEqual([
        { type: 'messageStart', payload: { role: 'assistant' } },
        { type: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Hi' } } },
      ]);
    }
  });

  it('throws an exception frame as its ProviderError, and a corrupt or cut frame as a broken stream', async () => {
    const exception = await all(readBedrockEvents(pieces(frame('throttlingException', { message: 'slow down' }, 'exception'), 64))).catch((e: unknown) => e);
    expect(exception).toMatchObject({ status: 429, message: 'slow down' });
    const good = frame('messageStart', { role: 'assistant' });
    const corrupt = Buffer.from(good);
    corrupt[corrupt.length - 6] ^= 0xff;
    for (const bytes of [corrupt, good.subarray(0, good.length - 3)]) {
      const error = await all(readBedrockEvents(pieces(bytes, 64))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ status: 502, code: 'upstream_stream_broken' });
    }
  });

  it('turns ConverseStream events into chat chunks: tool call deltas, reasoning, finish reason, usage last', async () => {
    async function* events(): AsyncGenerator<BedrockEvent> {
      yield { type: 'messageStart', payload: { role: 'assistant' } };
      yield { type: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Hm.' } } } };
      yield { type: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } } };
      yield { type: 'contentBlockStart', payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't1', name: 'f' } } } };
      yield { type: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"a":' } } } };
      yield { type: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '1}' } } } };
      yield { type: 'messageStop', payload: { stopReason: 'tool_use' } };
      yield { type: 'metadata', payload: { usage: { inputTokens: 3, outputTokens: 2 } } };
    }
    const chunks = await all(toChatCompletionChunks(events(), 'm', 1, true));
    expect(chunks.map((chunk) => (chunk['choices'] as { delta?: unknown; finish_reason?: unknown }[])[0] ?? chunk['usage'])).toEqual([
      expect.objectContaining({ delta: { role: 'assistant', content: '' } }),
      expect.objectContaining({ delta: { reasoning_content: 'Hm.' } }),
      expect.objectContaining({ delta: { thinking_blocks: [{ type: 'thinking', thinking: '', signature: 'sig' }] } }),
      expect.objectContaining({ delta: { tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'f', arguments: '' } }] } }),
      expect.objectContaining({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] } }),
      expect.objectContaining({ delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] } }),
      expect.objectContaining({ delta: {}, finish_reason: 'tool_calls' }),
      expect.objectContaining({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }),
    ]);
    async function* cut(): AsyncGenerator<BedrockEvent> {
      yield { type: 'messageStart', payload: { role: 'assistant' } };
    }
    await expect(all(toChatCompletionChunks(cut(), 'm', 1, true))).rejects.toMatchObject({ status: 502, code: 'upstream_stream_broken' });
  });
});
