// Gemini deployments as application developers meet them: the official OpenAI SDK against the
// gateway, the gateway against the Gemini fake of tools/fake-providers (Google's wire format).
import OpenAI, { AuthenticationError, BadRequestError, InternalServerError, RateLimitError } from 'openai';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, fakeUrl: string) => `
  - model_name: ${alias}
    litellm_params:
      model: gemini/${model}
      api_base: ${fakeUrl}/gemini
      api_key: os.environ/AIGW_TEST_GEMINI_KEY`;

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('ai-gateway chat completions on Gemini through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;

  beforeAll(async () => {
    process.env['AIGW_TEST_GEMINI_KEY'] = 'gemini-upstream-secret';
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) =>
        `model_list:${[
          deployment('flash', 'gemini-2.5-flash', fakeUrl),
          deployment('flash-usage', 'tokens-30-8-4-2', fakeUrl),
          deployment('flash-bad-key', 'fail-401', fakeUrl),
          deployment('flash-limited', 'fail-429', fakeUrl),
          deployment('flash-overloaded', 'fail-503', fakeUrl),
          deployment('flash-small', 'fail-context', fakeUrl),
        ].join('')}\n`,
    ));
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it('answers a plain chat from generateContent, with the provider key in x-goog-api-key', async () => {
    const completion = await client.chat.completions.create({ model: 'flash', messages: [{ role: 'user', content: 'plain hello' }], temperature: 0.4, max_tokens: 50 });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'fake answer from gemini-2.5-flash', refusal: null }, logprobs: null, finish_reason: 'stop' },
    ]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    const seen = await lastRequestWith(fake, 'plain hello');
    expect(seen.path).toBe('/gemini/v1beta/models/gemini-2.5-flash:generateContent');
    expect(seen.headers['x-goog-api-key']).toBe('gemini-upstream-secret');
    expect(seen.json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'plain hello' }] }], generationConfig: { temperature: 0.4, maxOutputTokens: 50 } });
  });

  it('sends the system prompt as systemInstruction', async () => {
    await client.chat.completions.create({
      model: 'flash',
      messages: [
        { role: 'system', content: 'Answer like a pirate.' },
        { role: 'user', content: 'system test' },
      ],
    });
    const seen = await lastRequestWith(fake, 'system test');
    expect(seen.json['systemInstruction']).toEqual({ parts: [{ text: 'Answer like a pirate.' }] });
    expect(seen.json['contents']).toEqual([{ role: 'user', parts: [{ text: 'system test' }] }]);
  });

  it('round-trips a tool call: functionCall out as tool_calls, the tool result back as functionResponse', async () => {
    const question = { role: 'user' as const, content: 'weather in Paris? (tools test)' };
    const first = await client.chat.completions.create({ model: 'flash', messages: [question], tools: [weatherTool], tool_choice: 'auto' });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const toolCall = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(toolCall).toEqual({ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"fake"}' } });
    expect((await lastRequestWith(fake, 'tools test')).json).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'The weather now', parametersJsonSchema: weatherTool.function.parameters }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });

    const second = await client.chat.completions.create({
      model: 'flash',
      messages: [question, choice.message, { role: 'tool', tool_call_id: toolCall.id, content: '{"temperature":21}' }],
      tools: [weatherTool],
    });
    expect(second.choices[0]?.message.content).toBe('fake answer from gemini-2.5-flash');
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect((await lastRequestWith(fake, 'temperature')).json['contents']).toEqual([
      { role: 'user', parts: [{ text: 'weather in Paris? (tools test)' }] },
      // Gemini's thought signature for the call comes back with it.
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'fake' } }, thoughtSignature: 'ZmFrZS10aG91Z2h0LXNpZ25hdHVyZQ==' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 21 } } }] },
    ]);
  });

  it('sends images inline (data: URLs) or by URL (fileData)', async () => {
    await client.chat.completions.create({
      model: 'flash',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'image test' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect((await lastRequestWith(fake, 'image test')).json['contents']).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'image test' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { fileUri: 'https://example.com/cat.jpg', mimeType: 'image/jpeg' } },
        ],
      },
    ]);
  });

  it('streams chunk by chunk from streamGenerateContent and ends with the usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'flash-usage',
      messages: [{ role: 'user', content: 'stream test' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('fake answer from tokens-30-8-4-2');
    expect(finish).toBe('stop');
    expect(usage).toEqual({
      prompt_tokens: 30,
      completion_tokens: 12,
      total_tokens: 42,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 4 },
      // tokens-30-8-4-2 has no price: the call cost nothing.
      cost: 0,
    });
    expect((await lastRequestWith(fake, 'stream test')).path).toBe('/gemini/v1beta/models/tokens-30-8-4-2:streamGenerateContent?alt=sse');
  });

  it("answers Google's invalid-key error (a 400 with API_KEY_INVALID) as AuthenticationError", async () => {
    const error = await client.chat.completions.create({ model: 'flash-bad-key', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe('invalid_api_key');
    expect((error as AuthenticationError).message).not.toContain('gemini-upstream-secret');
  });

  it('answers RESOURCE_EXHAUSTED as RateLimitError with Retry-After from RetryInfo', async () => {
    const error = await client.chat.completions.create({ model: 'flash-limited', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('rate_limit_exceeded');
    expect((error as RateLimitError).headers.get('retry-after')).toBe('2');
  });

  it('answers UNAVAILABLE as InternalServerError 503', async () => {
    const error = await client.chat.completions.create({ model: 'flash-overloaded', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(503);
  });

  it('answers a too long input as BadRequestError with code context_length_exceeded', async () => {
    const error = await client.chat.completions.create({ model: 'flash-small', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).code).toBe('context_length_exceeded');
    expect((error as BadRequestError).message).toContain('exceeds the maximum number of tokens');
  });
});
