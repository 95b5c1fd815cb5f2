// Anthropic models behind the gateway as application developers meet them: the official OpenAI SDK
// against the gateway, the gateway against the Anthropic fake (tools/fake-providers, /anthropic).
import OpenAI, { APIError, AuthenticationError, BadRequestError, InternalServerError, RateLimitError } from 'openai';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

describe('Anthropic deployments through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;

  /** The Messages request the fake received for the call whose user text contains `marker`. */
  const sentToAnthropic = async (marker: string): Promise<{ path: string; body: Record<string, unknown>; headers: Record<string, string> }> => {
    const { path, headers, json } = await lastRequestWith(fake, marker);
    return { path, headers, body: json };
  };

  beforeAll(async () => {
    process.env['AIGW_TEST_ANTHROPIC_KEY'] = 'sk-ant-upstream-secret';
    const deployment = (fakeUrl: string, alias: string, model: string, extra = '') => `
  - model_name: ${alias}
    litellm_params:
      model: anthropic/${model}
      api_base: ${fakeUrl}/anthropic
      api_key: os.environ/AIGW_TEST_ANTHROPIC_KEY${extra}`;
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) =>
        `model_list:${[
          deployment(fakeUrl, 'claude', 'claude-test'),
          deployment(fakeUrl, 'claude-usage', 'tokens-30-9'),
          // Priced as the built-in claude-sonnet-4-5; the fake reports 1000 cache writes and 2000 cache reads.
          deployment(fakeUrl, 'claude-cached', 'tokens-100-20-cache-1000-2000', '\n    model_info: { base_model: claude-sonnet-4-5 }'),
          deployment(fakeUrl, 'claude-401', 'fail-401'),
          deployment(fakeUrl, 'claude-429', 'fail-429'),
          deployment(fakeUrl, 'claude-overloaded', 'fail-529'),
          deployment(fakeUrl, 'claude-context', 'fail-context'),
          deployment(fakeUrl, 'claude-midstream', 'fail-midstream'),
          deployment(fakeUrl, 'claude-drop', 'fail-drop'),
        ].join('')}\n`,
    ));
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  /** USD the gateway's Prometheus cost counter holds for an alias. */
  const costRecordedFor = async (alias: string): Promise<number> => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const line = metrics.split('\n').find((row) => row.startsWith('arbor_aigw_cost_usd_total{') && row.includes(`alias="${alias}"`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it("searches the web with Anthropic's web search server tool for web_search_options, its citations as url_citation annotations", async () => {
    const completion = await client.chat.completions.create({
      model: 'claude',
      messages: [{ role: 'user', content: 'chat search marker' }],
      web_search_options: { search_context_size: 'high', user_location: { type: 'approximate', approximate: { city: 'Lyon', country: 'FR' } } },
    });
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe('According to the search: fake answer from claude-test');
    expect(message?.annotations).toEqual([
      { type: 'url_citation', url_citation: { url: 'https://example.com/fake-result-1', title: 'Fake result 1', start_index: 25, end_index: 53 } },
    ]);
    expect((message as unknown as { provider_specific_fields: unknown }).provider_specific_fields).toEqual({
      web_search_calls: [
        {
          id: expect.stringMatching(/^srvtoolu_/),
          status: 'completed',
          query: 'chat search marker',
          sources: [
            { url: 'https://example.com/fake-result-1', title: 'Fake result 1' },
            { url: 'https://example.com/fake-result-2', title: 'Fake result 2' },
          ],
        },
      ],
    });
    expect((await sentToAnthropic('chat search marker')).body['tools']).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 10, user_location: { type: 'approximate', city: 'Lyon', country: 'FR' } },
    ]);
  });

  it('answers a chat completion from the Messages API, with the provider key, version and max_tokens sent', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'claude', messages: [{ role: 'user', content: 'plain-hello' }], temperature: 0.2, max_tokens: 50 })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'fake answer from claude-test' });
    expect(data.choices[0]?.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    expect(response.headers.get('llm_provider-request-id')).toMatch(/^req_fake/);

    const sent = await sentToAnthropic('plain-hello');
    expect(sent.path).toBe('/anthropic/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-upstream-secret');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.body).toEqual({
      model: 'claude-test',
      max_tokens: 50,
      temperature: 0.2,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'plain-hello' }] }],
    });
  });

  it('sends system messages as the system prompt and a default max_tokens', async () => {
    await client.chat.completions.create({
      model: 'claude',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'system-hello' },
      ],
    });
    const sent = await sentToAnthropic('system-hello');
    expect(sent.body['system']).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(sent.body['messages']).toEqual([{ role: 'user', content: [{ type: 'text', text: 'system-hello' }] }]);
    expect(sent.body['max_tokens']).toBe(4096);
  });

  it('calls a tool and takes its result back (tool_use and tool_result on the wire)', async () => {
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'tools-weather?' };
    const first = await client.chat.completions.create({ model: 'claude', messages: [question], tools: [weatherTool], tool_choice: 'auto' });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"argument":"fake"}' } });
    expect((await sentToAnthropic('tools-weather?')).body).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather now', input_schema: weatherTool.function.parameters }],
      tool_choice: { type: 'auto' },
    });

    // The fake refuses a tool_result whose id has no tool_use in the turn before, as Anthropic does.
    const second = await client.chat.completions.create({
      model: 'claude',
      messages: [question, choice.message, { role: 'tool', tool_call_id: call.id, content: 'tools-sunny' }],
      tools: [weatherTool],
    });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.content).toBe('fake answer from claude-test');
    const sent = await sentToAnthropic('tools-sunny');
    expect((sent.body['messages'] as unknown[]).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'fake answer from claude-test' },
          { type: 'tool_use', id: call.id, name: 'get_weather', input: { argument: 'fake' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'tools-sunny' }] },
    ]);
  });

  it('returns thinking blocks and takes them back before the tool_use of the next turn, as Anthropic requires', async () => {
    type ThinkingMessage = OpenAI.ChatCompletionMessage & { reasoning_content?: string; thinking_blocks?: Record<string, unknown>[] };
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'think-weather?' };
    const first = await client.chat.completions.create({ model: 'claude', messages: [question], tools: [weatherTool], reasoning_effort: 'low' });
    const message = first.choices[0]!.message as ThinkingMessage;
    const call = message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(message.reasoning_content).toBe('The user wants a fake answer; a tool may help.');
    expect(message.thinking_blocks).toEqual([{ type: 'thinking', thinking: message.reasoning_content, signature: expect.stringMatching(/^fakesig-/) }]);
    expect((await sentToAnthropic('think-weather?')).body['thinking']).toEqual({ type: 'enabled', budget_tokens: 1024 });

    // The assistant message goes back as the SDK returned it, thinking_blocks included.
    const result: OpenAI.ChatCompletionMessageParam = { role: 'tool', tool_call_id: call.id, content: 'think-sunny' };
    const second = await client.chat.completions.create({ model: 'claude', messages: [question, message, result], tools: [weatherTool], reasoning_effort: 'low' });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    const sent = (await sentToAnthropic('think-sunny')).body['messages'] as { content: { type: string }[] }[];
    expect(sent[1]?.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(sent[1]?.content[0]).toEqual(message.thinking_blocks?.[0]);

    // Without its thinking block the turn is refused, as Anthropic refuses it.
    const { thinking_blocks: _dropped, ...withoutThinking } = message;
    const refused = await client.chat.completions
      .create({ model: 'claude', messages: [question, withoutThinking as OpenAI.ChatCompletionMessageParam, result], tools: [weatherTool], reasoning_effort: 'low' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toContain('must start with a thinking block');
  });

  it('streams thinking as reasoning_content and thinking_blocks deltas, signature included', async () => {
    const stream = await client.chat.completions.create({
      model: 'claude',
      messages: [{ role: 'user', content: 'think-stream' }],
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 2000 },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let reasoning = '';
    let thinking = '';
    let signature = '';
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string; thinking_blocks?: { thinking?: string; signature?: string }[] } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      content += delta?.content ?? '';
      for (const block of delta?.thinking_blocks ?? []) {
        thinking += block.thinking ?? '';
        signature += block.signature ?? '';
      }
    }
    expect({ reasoning, thinking, content }).toEqual({
      reasoning: 'The user wants a fake answer; a tool may help.',
      thinking: 'The user wants a fake answer; a tool may help.',
      content: 'fake answer from claude-test',
    });
    expect(signature).toMatch(/^fakesig-/);
    expect((await sentToAnthropic('think-stream')).body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 4096 + 2000 });
  });

  it('streams a tool call as tool call deltas', async () => {
    const stream = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'stream-tools' }], tools: [weatherTool], stream: true });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      for (const call of choice?.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = choice?.finish_reason ?? finish;
    }
    expect({ name, args: JSON.parse(args) as unknown, finish }).toEqual({ name: 'get_weather', args: { argument: 'fake' }, finish: 'tool_calls' });
  });

  it('sends images as base64 and url sources', async () => {
    await client.chat.completions.create({
      model: 'claude',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'image-what?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect((await sentToAnthropic('image-what?')).body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'image-what?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('stops at a stop sequence (finish_reason stop) and at max_tokens (finish_reason length)', async () => {
    const stopped = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'stop-x' }], stop: ['from'] });
    expect(stopped.choices[0]).toMatchObject({ message: { content: 'fake answer ' }, finish_reason: 'stop' });
    expect((await sentToAnthropic('stop-x')).body['stop_sequences']).toEqual(['from']);
    const cut = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'length-x' }], max_completion_tokens: 2 });
    expect(cut.choices[0]).toMatchObject({ message: { content: 'fake answer' }, finish_reason: 'length' });
  });

  it('streams text chunk by chunk, with no usage chunk when the client did not ask for one', async () => {
    const stream = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'stream-plain' }], stream: true });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('fake answer from claude-test');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.filter((chunk) => chunk.usage)).toEqual([]);
  });

  it('ends the stream with the usage chunk when stream_options.include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'claude-usage',
      messages: [{ role: 'user', content: 'stream-usage' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 });
    expect(chunks.filter((chunk) => chunk.usage)).toHaveLength(1);
  });

  it('prices prompt-cache writes at 1.25× and reads at 0.1× the input price, and reports them in usage', async () => {
    // $3 in, $15 out, cache reads $0.30 and writes $3.75 per million tokens.
    const expectedCost = 100 * 3e-6 + 1000 * 3.75e-6 + 2000 * 0.3e-6 + 20 * 15e-6;
    const { data, response } = await client.chat.completions.create({ model: 'claude-cached', messages: [{ role: 'user', content: 'cached-x' }] }).withResponse();
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(expectedCost, 12);
    expect(data.usage).toEqual({
      prompt_tokens: 3100,
      completion_tokens: 20,
      total_tokens: 3120,
      prompt_tokens_details: { cached_tokens: 2000 },
      cache_creation_input_tokens: 1000,
      cache_read_input_tokens: 2000,
      cost: expect.closeTo(expectedCost, 12),
    });
  });

  it('prices writes to the one-hour cache at 2× the input price, plain and streamed, and splits them by lifetime in usage', async () => {
    const cachedForAnHour = { type: 'text', text: 'A long document to keep for an hour.', cache_control: { type: 'ephemeral', ttl: '1h' } } as OpenAI.ChatCompletionContentPartText;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: [cachedForAnHour] }];
    // $3 in, $15 out, cache reads $0.30, one-hour writes $6 per million tokens.
    const expectedCost = 100 * 3e-6 + 1000 * 6e-6 + 2000 * 0.3e-6 + 20 * 15e-6;

    const { data, response } = await client.chat.completions.create({ model: 'claude-cached', messages }).withResponse();
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(expectedCost, 12);
    expect(data.usage?.prompt_tokens_details).toEqual({
      cached_tokens: 2000,
      cache_creation_tokens: 1000,
      cache_creation_token_details: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1000 },
    });

    // A streamed answer's cost is known after its headers: the cost counter of the alias tells it.
    const spentSoFar = await costRecordedFor('claude-cached');
    const stream = await client.chat.completions.create({ model: 'claude-cached', messages, stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage?.prompt_tokens_details).toMatchObject({ cache_creation_token_details: { ephemeral_1h_input_tokens: 1000 } });
    // Recorded when the response closes, which may come a moment after the SDK's last chunk.
    const deadline = Date.now() + 5000;
    let streamedCost = (await costRecordedFor('claude-cached')) - spentSoFar;
    while (streamedCost === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      streamedCost = (await costRecordedFor('claude-cached')) - spentSoFar;
    }
    expect(streamedCost).toBeCloseTo(expectedCost, 12);
  });

  it('maps Anthropic errors to the OpenAI SDK error classes', async () => {
    const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);

    expect(await ask('claude-401')).toBeInstanceOf(AuthenticationError);

    const limited = await ask('claude-429');
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).headers.get('retry-after')).toBe('1');

    const overloaded = await ask('claude-overloaded');
    expect(overloaded).toBeInstanceOf(InternalServerError);
    expect((overloaded as InternalServerError).status).toBe(503);
    expect((overloaded as InternalServerError).message).toContain('Overloaded');

    const context = await ask('claude-context');
    expect(context).toBeInstanceOf(BadRequestError);
    expect((context as BadRequestError).code).toBe('context_length_exceeded');
    expect((context as BadRequestError).message).toContain('prompt is too long');
  });

  it.each([
    ['an error event', 'claude-midstream', 'Overloaded'],
    ['a dropped connection', 'claude-drop', 'The Anthropic stream broke off'],
  ])('ends the stream with an error the SDK throws after the text so far when Anthropic breaks off with %s', async (_how, model, message) => {
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], stream: true });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(text).toBe('fake ');
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).message).toContain(message);
  });
});
