// The Anthropic fake against the official @anthropic-ai/sdk: if the SDK reads its answers, streams
// and errors as it reads api.anthropic.com's, the fake speaks the real wire format.
import Anthropic, { APIError, AuthenticationError, BadRequestError, InternalServerError, NotFoundError, PermissionDeniedError, RateLimitError } from '@anthropic-ai/sdk';
import { FAKE_THINKING, FAKE_TOOL_INPUT } from './anthropic-fake.ts';
import { startFakeProviders, type FakeProviders } from './fake-providers.ts';

describe('the Anthropic fake through the official Anthropic SDK', () => {
  let fake: FakeProviders;
  let client: Anthropic;
  const weatherTool = { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };

  beforeAll(async () => {
    fake = await startFakeProviders();
    client = new Anthropic({ apiKey: 'sk-ant-fake', baseURL: `${fake.url}/anthropic`, maxRetries: 0 });
  });

  afterAll(() => fake.close());

  it('answers a message with text, usage and a request id, echoing what arrived', async () => {
    const message = await client.messages.create({ model: 'claude-test', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'fake answer from claude-test' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: 5 });
    expect(message._request_id).toMatch(/^req_fake/);
    const echo = (message as unknown as { fake_echo: { body: unknown; api_key: string; anthropic_version: string } }).fake_echo;
    expect(echo.api_key).toBe('sk-ant-fake');
    expect(echo.body).toEqual({ model: 'claude-test', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'hello' }] });
  });

  it('streams events the SDK assembles into the same message', async () => {
    const stream = client.messages.stream({ model: 'tokens-30-9', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    const events: string[] = [];
    stream.on('streamEvent', (event) => events.push(event.type));
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const message = await stream.finalMessage();
    expect(text).toBe('fake answer from tokens-30-9');
    expect(message.content).toEqual([{ type: 'text', text: 'fake answer from tokens-30-9' }]);
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 9 });
    expect(events[0]).toBe('message_start');
    expect(events.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  });

  it('thinks first when thinking is on, streams the thinking signed, and wants it back before the tool_use', async () => {
    const request = {
      model: 'claude-test',
      max_tokens: 4000,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: [weatherTool],
      messages: [{ role: 'user' as const, content: 'weather?' }],
    };
    const streamed = await client.messages.stream(request).finalMessage();
    expect(streamed.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(streamed.content[0]).toMatchObject({ type: 'thinking', thinking: FAKE_THINKING, signature: expect.stringMatching(/^fakesig-/) });
    const toolUse = streamed.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
    const result = { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: toolUse.id, content: 'sunny' }] };

    const answered = await client.messages.create({ ...request, messages: [...request.messages, { role: 'assistant', content: streamed.content }, result] });
    expect(answered.stop_reason).toBe('end_turn');
    const refuse = async (content: Anthropic.ContentBlockParam[]) => {
      const error = await client.messages.create({ ...request, messages: [...request.messages, { role: 'assistant', content }, result] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      return (error as BadRequestError).message;
    };
    expect(await refuse(streamed.content.slice(1) as Anthropic.ContentBlockParam[])).toContain('must start with a thinking block');
    const altered = { ...(streamed.content[0] as Anthropic.ThinkingBlock), thinking: 'something else' };
    expect(await refuse([altered, ...streamed.content.slice(1)] as Anthropic.ContentBlockParam[])).toContain('Invalid `signature`');
    expect(await client.messages.create({ ...request, thinking: { type: 'enabled', budget_tokens: 10 } }).catch((e: unknown) => e)).toBeInstanceOf(BadRequestError);
  });

  it('refuses sampling parameters under API version 2026-10-21 (the SDK default) and takes them under 2023-06-01', async () => {
    const request = { model: 'claude-test', max_tokens: 10, temperature: 0.5, messages: [{ role: 'user' as const, content: 'x' }] };
    const refused = await client.messages.create(request).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toContain('temperature');
    const taken = await client.messages.create(request, { headers: { 'anthropic-version': '2023-06-01' } });
    expect(taken.stop_reason).toBe('end_turn');
  });

  it('calls the first tool when given tools, and answers in text once the tool result comes back', async () => {
    const request = { model: 'claude-test', max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user' as const, content: 'weather?' }] };
    const call = await client.messages.create(request);
    expect(call.stop_reason).toBe('tool_use');
    const toolUse = call.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ name: 'get_weather', input: FAKE_TOOL_INPUT });

    const streamed = await client.messages.stream(request).finalMessage();
    expect(streamed.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: FAKE_TOOL_INPUT });

    const answer = await client.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: call.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse!.type === 'tool_use' ? toolUse!.id : '', content: 'sunny' }] },
      ],
    });
    expect(answer.stop_reason).toBe('end_turn');
    expect(answer.content).toEqual([{ type: 'text', text: 'fake answer from claude-test' }]);
  });

  it('searches with the web search server tool as the API does: its call, its results, then cited text, streamed alike', async () => {
    const request = {
      model: 'claude-test',
      max_tokens: 100,
      tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 2, allowed_domains: ['docs.example.org'] }, weatherTool],
      messages: [{ role: 'user' as const, content: 'what is new?' }],
    };
    const message = await client.messages.create(request);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text', 'text', 'tool_use']);
    const [call, result, , cited] = message.content as [Anthropic.ServerToolUseBlock, Anthropic.WebSearchToolResultBlock, Anthropic.TextBlock, Anthropic.TextBlock];
    expect(call).toMatchObject({ name: 'web_search', input: { query: 'what is new?' } });
    expect(result.tool_use_id).toBe(call.id);
    expect(result.content).toEqual([
      expect.objectContaining({ type: 'web_search_result', url: 'https://docs.example.org/fake-result-1', title: 'Fake result 1' }),
      expect.objectContaining({ type: 'web_search_result', url: 'https://docs.example.org/fake-result-2', title: 'Fake result 2' }),
    ]);
    expect(cited).toMatchObject({ text: 'fake answer from claude-test', citations: [{ type: 'web_search_result_location', url: 'https://docs.example.org/fake-result-1' }] });
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1 });
    // The client's own tool is still called: the server tool is not one of them.
    expect(message.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'get_weather' });

    const streamed = await client.messages.stream(request).finalMessage();
    expect(streamed.content.map((block) => block.type)).toEqual(message.content.map((block) => block.type));
    expect(streamed.content[0]).toMatchObject({ type: 'server_tool_use', input: { query: 'what is new?' } });
    expect(streamed.content[3]).toMatchObject({ citations: [{ url: 'https://docs.example.org/fake-result-1' }] });

    const refused = await client.messages.create({ ...request, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 0 }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
  });

  it('refuses a tool result without the matching tool_use, as Anthropic does', async () => {
    const error = await client.messages
      .create({
        model: 'claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_nowhere', content: 'x' }] }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toContain('unexpected `tool_use_id`');
  });

  it('stops at a stop sequence and at max_tokens', async () => {
    const stopped = await client.messages.create({ model: 'claude-test', max_tokens: 100, stop_sequences: ['from'], messages: [{ role: 'user', content: 'x' }] });
    expect(stopped).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'from', content: [{ type: 'text', text: 'fake answer ' }] });
    const cut = await client.messages.create({ model: 'claude-test', max_tokens: 2, messages: [{ role: 'user', content: 'x' }] });
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: 'fake answer' }] });
  });

  it.each([
    ['fail-400', BadRequestError, 400, 'invalid_request_error'],
    ['fail-context', BadRequestError, 400, 'invalid_request_error'],
    ['fail-401', AuthenticationError, 401, 'authentication_error'],
    ['fail-403', PermissionDeniedError, 403, 'permission_error'],
    ['fail-404', NotFoundError, 404, 'not_found_error'],
    ['fail-429', RateLimitError, 429, 'rate_limit_error'],
    ['fail-500', InternalServerError, 500, 'api_error'],
    ['fail-529', InternalServerError, 529, 'overloaded_error'],
  ])('answers model %s with the SDK error %p', async (model, errorClass, status, type) => {
    const error = await client.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as APIError).status).toBe(status);
    expect((error as APIError).type).toBe(type);
    expect((error as APIError).requestID).toMatch(/^req_fake/);
  });

  it('says the prompt is too long for fail-context and asks a rate-limited caller to retry after a second', async () => {
    const context = await client.messages.create({ model: 'fail-context', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect((context as APIError).message).toContain('prompt is too long');
    const limited = await client.messages.create({ model: 'fail-429', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect((limited as RateLimitError).headers?.get('retry-after')).toBe('1');
  });

  it('ends a stream with an error event the SDK throws (midstream), or by dropping the connection', async () => {
    const texts: string[] = [];
    const midstream = await (async () => {
      const stream = await client.messages.create({ model: 'fail-midstream', max_tokens: 100, messages: [{ role: 'user', content: 'x' }], stream: true });
      for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') texts.push(event.delta.text);
    })().catch((e: unknown) => e);
    expect(texts).toEqual(['fake ']);
    expect(midstream).toBeInstanceOf(APIError);
    expect((midstream as APIError).type).toBe('overloaded_error');

    const dropped = await client.messages
      .stream({ model: 'fail-drop', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(Error);
  });

  it('holds a stream after its first text delta until released', async () => {
    const stream = await client.messages.create({ model: 'hold-anthropic-spec', max_tokens: 100, messages: [{ role: 'user', content: 'x' }], stream: true });
    const events = stream[Symbol.asyncIterator]();
    const seen: string[] = [];
    while (!seen.includes('content_block_delta')) seen.push((await events.next()).value.type);
    await fetch(`${fake.url}/_fake/release/anthropic-spec`, { method: 'POST' });
    for (let next = await events.next(); !next.done; next = await events.next()) seen.push(next.value.type);
    expect(seen.at(-1)).toBe('message_stop');
  });
});
