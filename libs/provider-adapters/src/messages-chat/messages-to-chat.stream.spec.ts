import { PassThrough, Readable } from 'node:stream';
import { ProviderError } from '../lib/provider-error';
import { readSseEvents } from '../lib/sse';
import { toChatCompletionChunks } from './messages-to-chat.stream';

const MODEL = 'claude-sonnet-4-5';

/** Anthropic's stream framing: `event: <type>` and `data: <json>` per event. */
function anthropicStream(...events: Record<string, unknown>[]): Readable {
  return Readable.from(events.map((event) => `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`));
}

async function collect(source: Readable, includeUsage = true): Promise<Record<string, unknown>[]> {
  const chunks = [];
  for await (const chunk of toChatCompletionChunks(readSseEvents(source), MODEL, 1700000000, includeUsage)) chunks.push(chunk);
  return chunks;
}

const deltas = (chunks: Record<string, unknown>[]) => chunks.map((chunk) => (chunk['choices'] as { delta: unknown; finish_reason: unknown }[])[0] ?? { usage: chunk['usage'] });

const messageStart = {
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: MODEL, usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 4 } },
};

describe('Anthropic stream events as OpenAI-format chunks', () => {
  it('streams the role, text deltas, the finish reason and the usage chunk; pings are ignored', async () => {
    const chunks = await collect(
      anthropicStream(
        messageStart,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'ping' },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' world' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 6 } },
        { type: 'message_stop' },
      ),
    );
    expect(chunks[0]).toEqual({
      id: 'msg_1',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: MODEL,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    expect(deltas(chunks)).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: 'Hello' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: ' world' }, logprobs: null, finish_reason: null },
      { index: 0, delta: {}, logprobs: null, finish_reason: 'stop' },
      {
        usage: {
          prompt_tokens: 16,
          completion_tokens: 6,
          total_tokens: 22,
          prompt_tokens_details: { cached_tokens: 4 },
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 4,
        },
      },
    ]);
    expect(chunks.at(-1)?.['choices']).toEqual([]);
  });

  it('sends no usage chunk when the client did not ask for one', async () => {
    const chunks = await collect(
      anthropicStream(messageStart, { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 1 } }, { type: 'message_stop' }),
      false,
    );
    expect(deltas(chunks).map((choice) => (choice as { finish_reason?: unknown }).finish_reason)).toEqual([null, 'length']);
  });

  it('streams tool_use blocks as tool call deltas numbered from 0', async () => {
    const chunks = await collect(
      anthropicStream(
        messageStart,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 20 } },
        { type: 'message_stop' },
      ),
      false,
    );
    expect(
      deltas(chunks)
        .slice(2)
        .map((choice) => (choice as { delta: unknown }).delta),
    ).toEqual([
      { tool_calls: [{ index: 0, id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      {},
    ]);
    expect((deltas(chunks).at(-1) as { finish_reason: unknown }).finish_reason).toBe('tool_calls');
  });

  it('streams thinking as reasoning_content with thinking_blocks deltas, then its signature, and redacted thinking whole', async () => {
    const chunks = await collect(
      anthropicStream(
        messageStart,
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Need ' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'the weather.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'ENCRYPTED' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 6 } },
        { type: 'message_stop' },
      ),
      false,
    );
    expect(
      deltas(chunks)
        .slice(1, -1)
        .map((choice) => (choice as { delta: unknown }).delta),
    ).toEqual([
      { reasoning_content: 'Need ', thinking_blocks: [{ type: 'thinking', thinking: 'Need ', signature: '' }] },
      { reasoning_content: 'the weather.', thinking_blocks: [{ type: 'thinking', thinking: 'the weather.', signature: '' }] },
      { thinking_blocks: [{ type: 'thinking', thinking: '', signature: 'sig-1' }] },
      { thinking_blocks: [{ type: 'redacted_thinking', data: 'ENCRYPTED' }] },
    ]);
  });

  it('throws the mapped error of an error event after the chunks before it', async () => {
    const chunks: unknown[] = [];
    const error = await (async () => {
      for await (const chunk of toChatCompletionChunks(
        readSseEvents(anthropicStream(messageStart, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })),
        MODEL,
        1,
        true,
      ))
        chunks.push(chunk);
    })().catch((e: unknown) => e);
    expect(chunks).toHaveLength(1);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(503);
    expect((error as ProviderError).message).toBe('Overloaded');
  });

  it('throws a 502 when the stream breaks off or ends before message_stop', async () => {
    const broken = new PassThrough();
    broken.write(`event: message_start\ndata: ${JSON.stringify(messageStart)}\n\n`);
    setImmediate(() => broken.destroy(new Error('socket hang up')));
    await expect(collect(broken)).rejects.toMatchObject({ status: 502, code: 'upstream_stream_broken' });
    await expect(collect(anthropicStream(messageStart))).rejects.toMatchObject({ status: 502, message: 'The Anthropic stream ended before message_stop.' });
  });

  it('streams a web search as one web_search_calls delta, never as a tool call, and the citations as annotations once their text block ends', async () => {
    const citation = { type: 'web_search_result_location', url: 'https://example.com/a', title: 'A', encrypted_index: 'x', cited_text: 'a page' };
    const chunks = await collect(
      anthropicStream(
        messageStart,
        { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query": "arbor' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: ' news"}' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'content_block_start',
          index: 1,
          content_block: {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: [{ type: 'web_search_result', url: 'https://example.com/a', title: 'A', encrypted_content: 'e' }],
          },
        },
        { type: 'content_block_stop', index: 1 },
        { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Found: ' } },
        { type: 'content_block_stop', index: 2 },
        { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '', citations: [] } },
        { type: 'content_block_delta', index: 3, delta: { type: 'citations_delta', citation } },
        { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'Arbor shipped.' } },
        { type: 'content_block_stop', index: 3 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 6 } },
        { type: 'message_stop' },
      ),
      false,
    );
    expect(deltas(chunks).map((choice) => (choice as { delta?: unknown }).delta)).toEqual([
      { role: 'assistant', content: '' },
      { provider_specific_fields: { web_search_calls: [{ id: 'srvtoolu_1', status: 'completed', query: 'arbor news', sources: [{ url: 'https://example.com/a', title: 'A' }] }] } },
      { content: 'Found: ' },
      { content: 'Arbor shipped.' },
      { annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com/a', title: 'A', start_index: 7, end_index: 21 } }] },
      {},
    ]);
  });
});
