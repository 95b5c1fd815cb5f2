// Google Vertex AI deployments as application developers meet them: the official OpenAI SDK (chat
// completions on Gemini and Claude, embeddings) and the official Anthropic SDK (/v1/messages, native
// on Claude through rawPredict) against the gateway, the gateway against the Vertex fake of
// tools/fake-providers, which checks every bearer token: a JWT signed by its own service account key.
import { generateKeyPairSync } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { AuthenticationError, BadRequestError, InternalServerError, PermissionDeniedError, RateLimitError } from 'openai';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, MASTER_KEY, readChatStream, rejectionOf, sdkClient, startFake, startTestGateway, stopGatewayOnFakes, writeConfig } from './testing/gateway-test-support';

const GOOGLE = '/vertex/v1/projects/fake-project/locations/us-central1/publishers/google/models';
const ANTHROPIC = '/vertex/v1/projects/fake-project/locations/us-central1/publishers/anthropic/models';

const deployment = (alias: string, model: string, fakeUrl: string, extra = '') => `
  - model_name: ${alias}
    litellm_params:
      model: vertex_ai/${model}
      api_base: ${fakeUrl}/vertex
      vertex_project: fake-project
      vertex_location: us-central1
      vertex_credentials: os.environ/AIGW_TEST_VERTEX_CREDENTIALS${extra}`;

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('ai-gateway on Google Vertex AI through the official OpenAI and Anthropic SDKs', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    fake = await startFake();
    // The fake's own service account key, as a user would download one; and one it does not know.
    const key = (await (await fetch(`${fake.url}/vertex/_fake/service-account`)).json()) as Record<string, string>;
    process.env['AIGW_TEST_VERTEX_CREDENTIALS'] = JSON.stringify(key);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    process.env['AIGW_TEST_VERTEX_STRANGER'] = JSON.stringify({ ...key, private_key: stranger });
    database = await createTestDatabase();
    gateway = await startTestGateway(
      database,
      writeConfig(
        `model_list:${[
          deployment('flash', 'gemini-2.5-flash', fake.url),
          deployment('sonnet', 'claude-sonnet-4-5@20250929', fake.url),
          deployment('sonnet-cached', 'claude-tokens-20-5-cache-10-4', fake.url),
          deployment('embed', 'text-embedding-005', fake.url),
          deployment('other-project', 'gemini-2.5-flash', fake.url).replace('vertex_project: fake-project', 'vertex_project: someone-elses-project'),
          deployment('stranger', 'gemini-2.5-flash', fake.url).replace('AIGW_TEST_VERTEX_CREDENTIALS', 'AIGW_TEST_VERTEX_STRANGER'),
          deployment('flash-limited', 'fail-429', fake.url),
          deployment('flash-invalid', 'fail-400', fake.url),
          deployment('flash-unavailable', 'fail-503', fake.url),
          deployment('sonnet-overloaded', 'fail-529', fake.url).replace('vertex_ai/fail-529', 'vertex_ai/claude-fail-529'),
        ].join('')}\n`,
      ),
    );
    client = sdkClient(gateway);
    anthropic = new Anthropic({ apiKey: MASTER_KEY, baseURL: gateway.url, maxRetries: 0 });
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it('answers a Gemini chat through generateContent with a token signed by the service account, priced at the list price', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'flash',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'vertex gemini plain' },
        ],
        max_tokens: 40,
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('fake answer from gemini-2.5-flash');
    expect(data.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 0.3e-6 + 5 * 2.5e-6, 15);
    const seen = await lastRequestWith(fake, 'vertex gemini plain');
    expect(seen.path).toBe(`${GOOGLE}/gemini-2.5-flash:generateContent`);
    expect(seen.headers['authorization']).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(seen.json).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'vertex gemini plain' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 40 },
    });
  });

  it('streams Gemini through streamGenerateContent, ending with the usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'flash',
      messages: [{ role: 'user', content: 'vertex gemini stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usage } = await readChatStream(stream);
    expect(text).toBe('fake answer from gemini-2.5-flash');
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5 });
    expect((await lastRequestWith(fake, 'vertex gemini stream')).path).toBe(`${GOOGLE}/gemini-2.5-flash:streamGenerateContent?alt=sse`);
  });

  it('round-trips a Gemini tool call with a tool-result turn', async () => {
    const question = { role: 'user' as const, content: 'weather? (vertex tools)' };
    const first = await client.chat.completions.create({ model: 'flash', messages: [question], tools: [weatherTool] });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"fake"}' });
    const second = await client.chat.completions.create({
      model: 'flash',
      messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"temperature":21}' }],
      tools: [weatherTool],
    });
    expect(second.choices[0]?.finish_reason).toBe('stop');
  });

  it("answers a chat on Claude through rawPredict, with Vertex's anthropic_version and no model in the body", async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'sonnet', messages: [{ role: 'user', content: 'vertex claude chat' }], max_tokens: 100 })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('fake answer from claude-sonnet-4-5@20250929');
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 3e-6 + 5 * 15e-6, 15);
    const seen = await lastRequestWith(fake, 'vertex claude chat');
    expect(seen.path).toBe(`${ANTHROPIC}/${encodeURIComponent('claude-sonnet-4-5@20250929')}:rawPredict`);
    expect(seen.json).toEqual({ anthropic_version: 'vertex-2023-10-16', max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'text', text: 'vertex claude chat' }] }] });

    const stream = await client.chat.completions.create({
      model: 'sonnet',
      messages: [{ role: 'user', content: 'vertex claude stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect((await readChatStream(stream)).text).toBe('fake answer from claude-sonnet-4-5@20250929');
    expect((await lastRequestWith(fake, 'vertex claude stream')).path).toBe(`${ANTHROPIC}/${encodeURIComponent('claude-sonnet-4-5@20250929')}:streamRawPredict`);
  });

  it("takes the chat parameters of the deployment's model family: top_k on Gemini and seed on Claude are refused with 400 naming them", async () => {
    const gemini = await rejectionOf(
      client.chat.completions.create({ model: 'flash', messages: [{ role: 'user', content: 'x' }], top_k: 5 } as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    expect(gemini).toBeInstanceOf(BadRequestError);
    expect((gemini as BadRequestError).param).toBe('top_k');
    const claude = await rejectionOf(client.chat.completions.create({ model: 'sonnet', messages: [{ role: 'user', content: 'x' }], seed: 1 }));
    expect(claude).toBeInstanceOf(BadRequestError);
    expect((claude as BadRequestError).param).toBe('seed');
  });

  it('passes /v1/messages through to Claude: cache_control and thinking as sent, plain and streamed', async () => {
    const message = await anthropic.messages.create({
      model: 'sonnet-cached',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'A long cached system prompt.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'vertex native messages' }],
    });
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 5, cache_creation_input_tokens: 10, cache_read_input_tokens: 4 });
    expect((await lastRequestWith(fake, 'vertex native messages')).json).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'A long cached system prompt.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'vertex native messages' }],
    });

    const final = await anthropic.messages.stream({ model: 'sonnet', max_tokens: 100, messages: [{ role: 'user', content: 'vertex streamed messages' }] }).finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'fake answer from claude-sonnet-4-5@20250929' })]);
    expect((await lastRequestWith(fake, 'vertex streamed messages')).json['stream']).toBe(true);
  });

  it('serves /v1/messages on Gemini through generateContent', async () => {
    const message = await anthropic.messages.create({ model: 'flash', max_tokens: 100, messages: [{ role: 'user', content: 'vertex bridged messages' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'fake answer from gemini-2.5-flash' })]);
  });

  it('embeds through predict, with the token counts Vertex reports', async () => {
    const { data, response } = await client.embeddings.create({ model: 'embed', input: ['one two three', 'four'], dimensions: 4 }).withResponse();
    expect(data.data.map((item) => item.embedding.length)).toEqual([4, 4]);
    expect(data.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(4 * 0.025e-6, 15);
    expect((await lastRequestWith(fake, 'one two three')).json).toEqual({
      instances: [{ content: 'one two three' }, { content: 'four' }],
      parameters: { outputDimensionality: 4 },
    });
  });

  it.each([
    ['stranger', AuthenticationError, 401],
    ['other-project', PermissionDeniedError, 403],
    ['flash-limited', RateLimitError, 429],
    ['flash-invalid', BadRequestError, 400],
    ['flash-unavailable', InternalServerError, 503],
    ['sonnet-overloaded', InternalServerError, 503],
  ] as const)("answers %s with the SDK error class of Vertex's error", async (alias, errorClass, status) => {
    const error = await rejectionOf(client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(errorClass);
    expect((error as InstanceType<typeof errorClass>).status).toBe(status);
  });

  describe("token counts by the model's own tokenizer (the fake counts a token per word)", () => {
    const lastCount = async () => (await fake.requests()).filter((request) => /count-tokens:rawPredict$|:countTokens$/.test(request.path)).at(-1);

    it('counts /v1/messages/count_tokens on Claude with count-tokens:rawPredict, the model in the body', async () => {
      const { data, response } = await anthropic.messages
        .countTokens({ model: 'sonnet', system: 'Be brief.', messages: [{ role: 'user', content: 'count these four words' }] })
        .withResponse();
      expect(data.input_tokens).toBe(6);
      expect(response.headers.get('x-arbor-token-count')).toBe('provider');
      const seen = await lastCount();
      expect(seen?.path).toBe(`${ANTHROPIC}/count-tokens:rawPredict`);
      expect(JSON.parse(seen?.body ?? '{}')).toEqual({ model: 'claude-sonnet-4-5@20250929', system: 'Be brief.', messages: [{ role: 'user', content: 'count these four words' }] });
    });

    it('counts /v1/messages/count_tokens on Gemini with countTokens, as the generateContent request', async () => {
      const counted = await anthropic.messages.countTokens({ model: 'flash', system: 'Be brief.', messages: [{ role: 'user', content: 'five words to count here' }] });
      expect(counted.input_tokens).toBe(7);
      const seen = await lastCount();
      expect(seen?.path).toBe(`${GOOGLE}/gemini-2.5-flash:countTokens`);
      expect(JSON.parse(seen?.body ?? '{}')).toEqual({
        contents: [{ role: 'user', parts: [{ text: 'five words to count here' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
      });
    });

    it.each([
      ['flash', ':countTokens'],
      ['sonnet', 'count-tokens:rawPredict'],
    ])('counts /v1/responses/input_tokens on %s too', async (alias, endpoint) => {
      const counted = await client.responses.inputTokens.count({ model: alias, instructions: 'Be brief.', input: 'three words here' });
      expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: 5 });
      expect((await lastCount())?.path.endsWith(endpoint)).toBe(true);
    });
  });
});
