import { ProviderError } from '../lib/provider-error';
import { toAnthropicRequest } from './chat-to-messages.request';

const MODEL = 'claude-sonnet-4-5';

describe('OpenAI-format chat completions as Anthropic Messages requests', () => {
  it('sends the deployment model, user text and the required max_tokens (4096 when the client gave none)', () => {
    expect(toAnthropicRequest({ model: 'alias', messages: [{ role: 'user', content: 'hello' }] }, MODEL)).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      max_tokens: 4096,
    });
    expect(toAnthropicRequest({ messages: [], max_tokens: 100 }, MODEL)['max_tokens']).toBe(100);
    expect(toAnthropicRequest({ messages: [], max_tokens: 100, max_completion_tokens: 50 }, MODEL)['max_tokens']).toBe(50);
  });

  it('moves every system and developer message, strings or text parts, into system', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } }] },
        ],
      },
      MODEL,
    );
    expect(request['system']).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(request['messages']).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('sends data: images as base64 with their media type and http images as url sources', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
            ],
          },
        ],
      },
      MODEL,
    );
    expect(request['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('refuses content it cannot translate with a 400 naming messages', () => {
    const attempt = () => toAnthropicRequest({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }, MODEL);
    expect(attempt).toThrow(ProviderError);
    expect(attempt).toThrow('input_audio');
    expect(() => toAnthropicRequest({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }] }, MODEL)).toThrow('image_url.url');
  });

  it('translates function tools and each tool_choice', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const choice = (tool_choice: unknown, extra: Record<string, unknown> = {}) => toAnthropicRequest({ messages: [], tools, tool_choice, ...extra }, MODEL)['tool_choice'];
    expect(toAnthropicRequest({ messages: [], tools }, MODEL)['tools']).toEqual([
      { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
    ]);
    expect(choice('auto')).toEqual({ type: 'auto' });
    expect(choice('none')).toEqual({ type: 'none' });
    expect(choice('required')).toEqual({ type: 'any' });
    expect(choice({ type: 'function', function: { name: 'get_weather' } })).toEqual({ type: 'tool', name: 'get_weather' });
    expect(choice(undefined, { parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice('required', { parallel_tool_calls: false })).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(choice(undefined)).toBeUndefined();
  });

  it('turns assistant tool calls into tool_use and consecutive tool messages into one user turn of tool_result', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          { role: 'user', content: 'weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'rain' }] },
          { role: 'user', content: 'and tomorrow?' },
        ],
      },
      MODEL,
    );
    expect(request['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'rain' }] },
          { type: 'text', text: 'and tomorrow?' },
        ],
      },
    ]);
  });

  it('refuses tool call arguments that are not JSON', () => {
    expect(() =>
      toAnthropicRequest(
        {
          messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }] }],
        },
        MODEL,
      ),
    ).toThrow('not valid JSON');
  });

  it('maps stop, sampling, user and reasoning_effort', () => {
    const request = toAnthropicRequest(
      {
        messages: [],
        stop: 'END',
        temperature: 0.3,
        top_p: 0.9,
        top_k: 5,
        user: 'user-42',
        stream: true,
        stream_options: { include_usage: true },
      },
      MODEL,
    );
    expect(request).toEqual({
      model: MODEL,
      messages: [],
      max_tokens: 4096,
      stop_sequences: ['END'],
      temperature: 0.3,
      top_p: 0.9,
      top_k: 5,
      metadata: { user_id: 'user-42' },
      stream: true,
    });
    expect(toAnthropicRequest({ messages: [], stop: ['a', 'b'] }, MODEL)['stop_sequences']).toEqual(['a', 'b']);
    const thinking = toAnthropicRequest({ messages: [], reasoning_effort: 'medium' }, MODEL);
    expect(thinking['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(thinking['max_tokens']).toBe(4096 + 2048);
    expect(toAnthropicRequest({ messages: [], reasoning_effort: 'none' }, MODEL)['thinking']).toBeUndefined();
  });

  it("passes Anthropic's own thinking parameter (it wins over reasoning_effort) and refuses a malformed one", () => {
    const request = toAnthropicRequest({ messages: [], thinking: { type: 'enabled', budget_tokens: 3000 }, reasoning_effort: 'low' }, MODEL);
    expect(request).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 3000 }, max_tokens: 4096 + 3000 });
    expect(toAnthropicRequest({ messages: [], thinking: { type: 'disabled' } }, MODEL)).toMatchObject({ thinking: { type: 'disabled' }, max_tokens: 4096 });
    expect(() => toAnthropicRequest({ messages: [], thinking: { type: 'enabled' } }, MODEL)).toThrow(ProviderError);
  });

  it("puts an assistant turn's thinking_blocks back first, before its text and tool_use blocks", () => {
    const thinking = { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-1' };
    const redacted = { type: 'redacted_thinking', data: 'ENCRYPTED' };
    const request = toAnthropicRequest(
      {
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: 'Checking.',
            reasoning_content: 'Need the weather.',
            thinking_blocks: [thinking, redacted],
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
      },
      MODEL,
    );
    expect((request['messages'] as { content: unknown[] }[])[1]?.content).toEqual([
      thinking,
      redacted,
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} },
    ]);
    expect(() => toAnthropicRequest({ messages: [{ role: 'assistant', content: 'x', thinking_blocks: [{ type: 'thinking', thinking: 'unsigned' }] }] }, MODEL)).toThrow(
      'signature',
    );
  });
});
