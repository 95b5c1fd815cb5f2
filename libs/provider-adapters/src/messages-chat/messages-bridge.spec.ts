import { Readable } from 'node:stream';
import type { ProviderAnswer } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { readSseEvents } from '../lib/sse';
import { chatAnswerAsMessages, messagesToChatRequest } from './messages-bridge';

const answer = (body: string[], contentType: string): ProviderAnswer => ({ status: 200, headers: {}, contentType, body: Readable.from(body) });

async function events(result: ProviderAnswer): Promise<{ event: string | undefined; data: Record<string, unknown> }[]> {
  const seen = [];
  for await (const event of readSseEvents(result.body)) seen.push({ event: event.event, data: JSON.parse(event.data) as Record<string, unknown> });
  return seen;
}

async function text(body: AsyncIterable<Buffer | string>): Promise<string> {
  let result = '';
  for await (const chunk of body) result += String(chunk);
  return result;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('the messages ⇄ chat bridge', () => {
  it('turns a Messages request into chat: system, images, PDF, tool results after their call, tools, choice, stop, user, thinking', () => {
    const chat = messagesToChatRequest({
      model: 'alias',
      max_tokens: 300,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      stop_sequences: ['END'],
      metadata: { user_id: 'u1' },
      thinking: { type: 'enabled', budget_tokens: 4096 },
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      service_tier: 'auto',
      top_k: 5,
      drop_params: true,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 't', signature: 's' },
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] },
            { type: 'text', text: 'and now?' },
          ],
        },
      ],
    });
    expect(chat).toEqual({
      model: 'alias',
      max_tokens: 300,
      stop: ['END'],
      user: 'u1',
      reasoning_effort: 'medium',
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      // Not translated: the target's parameter list and drop_params judge them.
      top_k: 5,
      drop_params: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
            { type: 'file', file: { filename: 'document.pdf', file_data: 'data:application/pdf;base64,JVBE' } },
          ],
        },
        { role: 'assistant', content: 'calling', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
        { role: 'user', content: 'and now?' },
      ],
    });
  });

  it('takes what Claude Code sends: system turns, output effort and format, context editing that only clears thinking', () => {
    const chat = messagesToChatRequest({
      model: 'alias',
      max_tokens: 32000,
      thinking: { type: 'adaptive', display: 'omitted' },
      output_config: { effort: 'max', format: { type: 'json_schema', schema: { type: 'object' } } },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'system',
          content: [
            { type: 'text', text: '# Environment' },
            { type: 'text', text: 'linux' },
          ],
        },
      ],
    });
    expect(chat).toEqual({
      model: 'alias',
      max_tokens: 32000,
      reasoning_effort: 'high',
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object' }, strict: true } },
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: '# Environment\n\nlinux' },
      ],
    });
    // Clearing tool results is the target's to honour: it goes on, for drop_params to judge.
    const edits = { edits: [{ type: 'clear_tool_uses_20250919' }] };
    expect(messagesToChatRequest({ model: 'a', max_tokens: 5, context_management: edits, messages: [{ role: 'user', content: 'x' }] })['context_management']).toEqual(edits);
  });

  it('refuses a request Anthropic would refuse, naming the field', () => {
    expect(() => messagesToChatRequest({ model: 'a', messages: [] })).toThrow(ProviderError);
    expect(() => messagesToChatRequest({ model: 'a', messages: [] })).toThrow(/^max_tokens: /);
    expect(() => messagesToChatRequest({ model: 'a', max_tokens: 5, messages: [{ role: 'tool', content: 'x' }] })).toThrow(/^messages\.0\.role: /);
  });

  it('answers a chat completion as a message: reasoning as thinking, text, tool calls, stop reason, usage in Anthropic fields', async () => {
    const completion = {
      id: 'chatcmpl-9',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            reasoning_content: 'hmm',
            content: 'let me look',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 10 } },
    };
    const result = chatAnswerAsMessages(answer([JSON.stringify(completion)], 'application/json'), 'alias', false);
    expect(JSON.parse(await text(result.body))).toEqual({
      id: 'msg_9',
      type: 'message',
      role: 'assistant',
      model: 'alias',
      stop_reason: 'tool_use',
      stop_sequence: null,
      content: [
        { type: 'thinking', thinking: 'hmm', signature: '' },
        { type: 'text', text: 'let me look' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      usage: { input_tokens: 20, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
    });
  });

  it('streams chat chunks as Messages events one for one, each block stopped before the next, usage at the end', async () => {
    const result = chatAnswerAsMessages(
      answer(
        [
          chunk({ role: 'assistant', content: '' }),
          chunk({ reasoning_content: 'thinking ' }),
          chunk({ reasoning_content: 'more' }),
          chunk({ content: 'Hel' }),
          chunk({ content: 'lo' }),
          chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
          chunk({}, 'tool_calls'),
          `data: ${JSON.stringify({ id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 12, completion_tokens: 7 } })}\n\n`,
          'data: [DONE]\n\n',
        ],
        'text/event-stream',
      ),
      'alias',
      true,
    );
    const seen = await events(result);
    expect(seen.every(({ event, data }) => event === data['type'])).toBe(true);
    expect(seen.map(({ data }) => data)).toEqual([
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'alias',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'thinking ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'more' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
      { type: 'message_stop' },
    ]);
  });

  it.each([
    ['length', 'max_tokens'],
    ['stop', 'end_turn'],
    ['content_filter', 'refusal'],
  ])('maps finish_reason %s to stop_reason %s', async (finish, stop) => {
    const result = chatAnswerAsMessages(answer([chunk({ content: 'x' }), chunk({}, finish), 'data: [DONE]\n\n'], 'text/event-stream'), 'alias', true);
    expect((await events(result)).find(({ data }) => data['type'] === 'message_delta')?.data).toMatchObject({ delta: { stop_reason: stop } });
  });

  it('ends a stream with a ProviderError when the upstream sent an error event or stopped early', async () => {
    const failed = chatAnswerAsMessages(
      answer([chunk({ content: 'x' }), `data: ${JSON.stringify({ error: { message: 'boom', type: 'server_error', code: null } })}\n\n`], 'text/event-stream'),
      'alias',
      true,
    );
    await expect(events(failed)).rejects.toMatchObject({ message: 'boom', type: 'server_error' });
    const cut = chatAnswerAsMessages(answer([chunk({ content: 'x' })], 'text/event-stream'), 'alias', true);
    await expect(events(cut)).rejects.toMatchObject({ code: 'upstream_stream_broken' });
  });
});
