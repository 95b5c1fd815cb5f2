// Cohere deployments as application developers meet them: the official OpenAI SDK against the
// gateway, the gateway against the Cohere fake of tools/fake-providers, which speaks Cohere's
// native chat v2 (POST /v2/chat, its own stream events and errors).
import OpenAI, { AuthenticationError, BadRequestError, PermissionDeniedError, RateLimitError } from 'openai';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, readChatStream, rejectionOf, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, fakeUrl: string) => `
  - model_name: ${alias}
    litellm_params:
      model: cohere/${model}
      api_base: ${fakeUrl}/cohere
      api_key: cohere-upstream-key`;

const weatherTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'The weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe("ai-gateway on Cohere's chat v2 through the official OpenAI SDK", () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;

  beforeAll(async () => {
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) =>
        `model_list:${[
          deployment('command', 'command-r-08-2024', fakeUrl),
          deployment('command-usage', 'tokens-1000-200', fakeUrl),
          deployment('embed', 'embed-english-v3.0', fakeUrl),
          deployment('command-bad-key', 'fail-401', fakeUrl),
          deployment('command-unpaid', 'fail-402', fakeUrl),
          deployment('command-limited', 'fail-429', fakeUrl),
          deployment('command-invalid', 'fail-422', fakeUrl),
          deployment('command-small', 'fail-context', fakeUrl),
        ].join('')}\n`,
    ));
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it("answers a chat completion from POST /v2/chat, the parameters under Cohere's names, priced on the billed units", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'command',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: 'cohere plain' },
        ],
        temperature: 0.3,
        top_p: 0.9,
        max_completion_tokens: 40,
        stop: 'END',
        seed: 7,
      })
      .withResponse();
    expect(data.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'fake answer from command-r-08-2024' }, finish_reason: 'stop' });
    // The billed units (7 in, 5 out), not the tokens the model saw with Cohere's preamble (10 in).
    expect(data.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 0.15e-6 + 5 * 0.6e-6, 15);
    const seen = await lastRequestWith(fake, 'cohere plain');
    expect(seen.path).toBe('/cohere/v2/chat');
    expect(seen.headers['authorization']).toBe('Bearer cohere-upstream-key');
    expect(seen.json).toEqual({
      model: 'command-r-08-2024',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'cohere plain' },
      ],
      temperature: 0.3,
      p: 0.9,
      max_tokens: 40,
      stop_sequences: ['END'],
      seed: 7,
    });
  });

  it("streams Cohere's v2 events as chat completion chunks, usage at the end when asked", async () => {
    const stream = await client.chat.completions.create({
      model: 'command-usage',
      messages: [{ role: 'user', content: 'cohere stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, finishReason, usage } = await readChatStream(stream);
    expect(text).toBe('fake answer from tokens-1000-200 ');
    expect(finishReason).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 });
    expect((await lastRequestWith(fake, 'cohere stream')).json).toMatchObject({ stream: true });
  });

  it("calls a tool and takes its result on the next turn, in Cohere's messages", async () => {
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'cohere weather in Paris?' };
    const first = await client.chat.completions.create({ model: 'command', messages: [question], tools: [weatherTool], tool_choice: 'required' });
    const call = first.choices[0]?.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"argument":"fake"}' });
    expect((await lastRequestWith(fake, 'cohere weather in Paris?')).json).toMatchObject({ tools: [weatherTool], tool_choice: 'REQUIRED' });

    const second = await client.chat.completions.create({
      model: 'command',
      tools: [weatherTool],
      messages: [question, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '21 degrees, cohere sunny' }],
    });
    expect(second.choices[0]?.message.content).toBe('fake answer from command-r-08-2024');
    expect((await lastRequestWith(fake, 'cohere sunny')).json['messages']).toEqual([
      { role: 'user', content: 'cohere weather in Paris?' },
      { role: 'assistant', tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: '21 degrees, cohere sunny' },
    ]);
  });

  it('streams a tool call from tool-call-start and tool-call-delta events', async () => {
    const stream = await client.chat.completions.create({ model: 'command', messages: [{ role: 'user', content: 'cohere streamed tool' }], tools: [weatherTool], stream: true });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name += call?.function?.name ?? '';
      args += call?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect({ name, args, finish }).toEqual({ name: 'get_weather', args: '{"argument":"fake"}', finish: 'tool_calls' });
  });

  it("embeds through Cohere's Compatibility API at {api_base}/compatibility/v1", async () => {
    const embeddings = await client.embeddings.create({ model: 'embed', input: 'cohere embed me' });
    expect(embeddings.data).toHaveLength(1);
    expect((await lastRequestWith(fake, 'cohere embed me')).path).toBe('/cohere/compatibility/v1/embeddings');
  });

  it.each([
    ['command-bad-key', AuthenticationError, 401, 'invalid_api_key'],
    ['command-unpaid', PermissionDeniedError, 403, null],
    ['command-limited', RateLimitError, 429, 'rate_limit_exceeded'],
    ['command-invalid', BadRequestError, 400, null],
    ['command-small', BadRequestError, 400, 'context_length_exceeded'],
  ] as const)("answers %s with the SDK error class of Cohere's error and its message", async (alias, errorClass, status, code) => {
    const error = await rejectionOf(client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ status, code });
    expect((error as Error).message).not.toMatch(/^\d+ status code/);
  });
});
