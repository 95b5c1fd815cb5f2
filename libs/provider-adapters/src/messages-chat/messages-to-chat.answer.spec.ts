import { toChatCompletion } from './messages-to-chat.answer';

const MODEL = 'claude-sonnet-4-5';

describe('Anthropic Messages answers as OpenAI-format chat completions', () => {
  it('joins text blocks into the message and counts cache reads and writes as prompt tokens', () => {
    const completion = toChatCompletion(
      {
        id: 'msg_01',
        content: [
          { type: 'text', text: 'Hello ' },
          { type: 'text', text: 'there.' },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 4, cache_creation_input_tokens: 3, cache_read_input_tokens: 20 },
      },
      MODEL,
      1700000000,
    );
    expect(completion).toEqual({
      id: 'msg_01',
      object: 'chat.completion',
      created: 1700000000,
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 33,
        completion_tokens: 4,
        total_tokens: 37,
        prompt_tokens_details: { cached_tokens: 20 },
        cache_creation_input_tokens: 3,
        cache_read_input_tokens: 20,
      },
    });
  });

  it('turns tool_use blocks into tool calls with JSON arguments', () => {
    const completion = toChatCompletion(
      {
        id: 'msg_02',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      MODEL,
      1,
    ) as { choices: { message: unknown; finish_reason: string }[] };
    expect(completion.choices[0]).toMatchObject({
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      finish_reason: 'tool_calls',
    });
  });

  it('returns thinking as reasoning_content and every thinking block, signed or redacted, as thinking_blocks', () => {
    const completion = toChatCompletion(
      {
        id: 'msg_03',
        content: [
          { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'ENCRYPTED' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
        ],
        stop_reason: 'tool_use',
        usage: {},
      },
      MODEL,
      1,
    ) as { choices: { message: Record<string, unknown> }[] };
    expect(completion.choices[0]?.message).toMatchObject({
      reasoning_content: 'Need the weather.',
      thinking_blocks: [
        { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'ENCRYPTED' },
      ],
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('maps stop_reason %s to finish_reason %s', (stopReason, finishReason) => {
    const completion = toChatCompletion({ id: 'm', content: [], stop_reason: stopReason, usage: {} }, MODEL, 1) as { choices: { finish_reason: string }[] };
    expect(completion.choices[0]?.finish_reason).toBe(finishReason);
  });
});
