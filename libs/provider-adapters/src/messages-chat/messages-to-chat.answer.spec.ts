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

  it("turns the web search server tool's call and results into web_search_calls, and the text's citations into url_citation annotations", () => {
    const citation = { type: 'web_search_result_location', url: 'https://example.com/a', title: 'A', encrypted_index: 'x', cited_text: 'a page' };
    const completion = toChatCompletion(
      {
        id: 'msg_02',
        content: [
          { type: 'text', text: 'Let me look. ' },
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'arbor news' } },
          {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: [
              { type: 'web_search_result', url: 'https://example.com/a', title: 'A', encrypted_content: 'e', page_age: null },
              { type: 'web_search_result', url: 'https://example.com/b', title: 'B', encrypted_content: 'e' },
            ],
          },
          { type: 'server_tool_use', id: 'srvtoolu_2', name: 'web_search', input: { query: 'more' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_2', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } },
          { type: 'text', text: 'Arbor shipped.', citations: [citation] },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 4 },
      },
      MODEL,
      1700000000,
    );
    const message = (completion['choices'] as { message: Record<string, unknown> }[])[0]?.message;
    expect(message).toMatchObject({
      content: 'Let me look. Arbor shipped.',
      annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com/a', title: 'A', start_index: 13, end_index: 27 } }],
      provider_specific_fields: {
        web_search_calls: [
          {
            id: 'srvtoolu_1',
            status: 'completed',
            query: 'arbor news',
            sources: [
              { url: 'https://example.com/a', title: 'A' },
              { url: 'https://example.com/b', title: 'B' },
            ],
          },
          { id: 'srvtoolu_2', status: 'failed', query: 'more', sources: [] },
        ],
      },
    });
    expect(message).not.toHaveProperty('tool_calls');
  });
});
