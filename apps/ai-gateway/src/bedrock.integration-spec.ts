// AWS Bedrock deployments as application developers meet them: the official OpenAI SDK (chat
// completions through Converse, embeddings) and the official Anthropic SDK (/v1/messages, native on
// Claude through InvokeModel) against the gateway, the gateway against the Bedrock fake of
// tools/fake-providers, which checks every SigV4 signature and streams AWS event-stream frames.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { AuthenticationError, BadRequestError, InternalServerError, PermissionDeniedError, RateLimitError } from 'openai';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, readChatStream, rejectionOf, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

// The key the fake knows (tools/fake-providers/src/bedrock-fake.ts).
const ACCESS_KEY_ID = 'FAKEBEDROCKACCESSKEY';
const SECRET = 'fake-bedrock-secret-access-key';
const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const ROLE = 'arn:aws:iam::123456789012:role/bedrock-caller';
const BEDROCK_API_KEY = 'fake-bedrock-api-key-1';

const deployment = (
  alias: string,
  model: string,
  fakeUrl: string,
  credentials = '\n      aws_access_key_id: os.environ/AIGW_TEST_AWS_KEY_ID\n      aws_secret_access_key: os.environ/AIGW_TEST_AWS_SECRET',
) => `
  - model_name: ${alias}
    litellm_params:
      model: bedrock/${model}
      api_base: ${fakeUrl}/bedrock
      aws_region_name: us-east-1${credentials}`;

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('ai-gateway on AWS Bedrock through the official OpenAI and Anthropic SDKs', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;
  let anthropic: Anthropic;
  const saved = { id: process.env['AWS_ACCESS_KEY_ID'], secret: process.env['AWS_SECRET_ACCESS_KEY'], token: process.env['AWS_SESSION_TOKEN'] };

  beforeAll(async () => {
    process.env['AIGW_TEST_AWS_KEY_ID'] = ACCESS_KEY_ID;
    process.env['AIGW_TEST_AWS_SECRET'] = SECRET;
    // The standard AWS environment, for the deployment that names no keys.
    process.env['AWS_ACCESS_KEY_ID'] = ACCESS_KEY_ID;
    process.env['AWS_SECRET_ACCESS_KEY'] = SECRET;
    process.env['AWS_SESSION_TOKEN'] = 'fake-session-token';
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) =>
        `model_list:${[
          deployment('claude', CLAUDE, fakeUrl),
          deployment('claude-cached', 'anthropic.claude-tokens-20-5-cache-10-4', fakeUrl),
          deployment('llama', 'us.meta.llama3-3-70b-instruct-v1:0', fakeUrl),
          deployment('llama-from-env', 'meta.llama3-3-70b-instruct-v1:0', fakeUrl, ''),
          deployment('llama-bad-secret', 'meta.llama3-3-70b-instruct-v1:0', fakeUrl, `\n      aws_access_key_id: ${ACCESS_KEY_ID}\n      aws_secret_access_key: not-the-secret`),
          deployment(
            'llama-assumed-role',
            'meta.llama3-1-8b-instruct-v1:0',
            fakeUrl,
            `\n      aws_access_key_id: ${ACCESS_KEY_ID}\n      aws_secret_access_key: os.environ/AIGW_TEST_AWS_SECRET\n      aws_role_name: ${ROLE}\n      aws_sts_endpoint: ${fakeUrl}/sts`,
          ),
          deployment(
            'llama-web-identity',
            'meta.llama3-1-8b-instruct-v1:0',
            fakeUrl,
            `\n      aws_role_name: ${ROLE}\n      aws_web_identity_token: fake-oidc-token\n      aws_session_name: gateway-session\n      aws_sts_endpoint: ${fakeUrl}/sts`,
          ),
          deployment('llama-api-key', 'meta.llama3-1-8b-instruct-v1:0', fakeUrl, `\n      api_key: ${BEDROCK_API_KEY}`),
          deployment('titan', 'amazon.titan-embed-text-v2:0', fakeUrl),
          deployment('cohere-embed', 'cohere.embed-english-v3', fakeUrl),
          deployment('throttled', 'fail-throttling', fakeUrl),
          deployment('denied', 'fail-access', fakeUrl),
          deployment('invalid', 'fail-validation', fakeUrl),
          deployment('too-long', 'fail-context', fakeUrl),
          deployment('loading', 'fail-not-ready', fakeUrl),
          deployment('breaks', 'fail-midstream', fakeUrl),
        ].join('')}\n`,
    ));
    anthropic = new Anthropic({ apiKey: 'sk-arbor-test-master', baseURL: gateway.url, maxRetries: 0 });
  });

  afterAll(async () => {
    await stopGatewayOnFakes({ fake, database, gateway });
    for (const [name, value] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ['AWS_SESSION_TOKEN', saved.token],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('answers a chat through Converse, signed with SigV4, with the system prompt and inference config translated, priced at the list price', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'claude',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'plain bedrock' },
        ],
        temperature: 0.3,
        max_tokens: 50,
        stop: 'END',
      })
      .withResponse();
    expect(data.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: `fake answer from ${CLAUDE}` }, finish_reason: 'stop' });
    expect(data.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    // 7 × $3/M + 5 × $15/M
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 3e-6 + 5 * 15e-6, 15);
    const seen = await lastRequestWith(fake, 'plain bedrock');
    expect(seen.path).toBe(`/bedrock/model/${encodeURIComponent(CLAUDE)}/converse`);
    expect(seen.headers['authorization']).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/\\d{8}/us-east-1/bedrock/aws4_request, SignedHeaders=`));
    expect(seen.json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'plain bedrock' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 50, temperature: 0.3, stopSequences: ['END'] },
    });
  });

  it("streams ConverseStream's event-stream frames as chunks, ending with the usage", async () => {
    const stream = await client.chat.completions.create({
      model: 'llama',
      messages: [{ role: 'user', content: 'bedrock stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, finishReason, usage } = await readChatStream(stream);
    expect(text).toBe('fake answer from us.meta.llama3-3-70b-instruct-v1:0');
    expect(finishReason).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    expect((await lastRequestWith(fake, 'bedrock stream')).path).toBe(`/bedrock/model/${encodeURIComponent('us.meta.llama3-3-70b-instruct-v1:0')}/converse-stream`);
  });

  it('round-trips a tool call: toolUse out as tool_calls, the tool result back as toolResult, streamed too', async () => {
    const question = { role: 'user' as const, content: 'weather in Paris? (bedrock tools)' };
    const first = await client.chat.completions.create({ model: 'claude', messages: [question], tools: [weatherTool], tool_choice: 'required' });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call).toEqual({ id: expect.stringMatching(/^tooluse_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"fake"}' } });
    expect((await lastRequestWith(fake, 'bedrock tools')).json['toolConfig']).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', description: 'The weather now', inputSchema: { json: weatherTool.function.parameters } } }],
      toolChoice: { any: {} },
    });

    const second = await client.chat.completions.create({
      model: 'claude',
      messages: [question, choice.message, { role: 'tool', tool_call_id: call.id, content: '{"temperature":21}' }],
      tools: [weatherTool],
    });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect((await lastRequestWith(fake, 'bedrock tools')).json['messages']).toEqual([
      { role: 'user', content: [{ text: question.content }] },
      { role: 'assistant', content: [{ text: `fake answer from ${CLAUDE}` }, { toolUse: { toolUseId: call.id, name: 'get_weather', input: { city: 'fake' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: call.id, content: [{ text: '{"temperature":21}' }] } }] },
    ]);

    const stream = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'bedrock streamed tools' }], tools: [weatherTool], stream: true });
    let name = '';
    let args = '';
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += delta.function?.name ?? '';
        args += delta.function?.arguments ?? '';
      }
    }
    // Not forced this time (auto): the fake's placeholder input, as the model chose to call it.
    expect({ name, args }).toEqual({ name: 'get_weather', args: '{"argument":"fake"}' });
  });

  it('sends images as Converse image blocks, and refuses image links Bedrock cannot fetch with 400', async () => {
    await client.chat.completions.create({
      model: 'claude',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'bedrock image' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
      ],
    });
    expect((await lastRequestWith(fake, 'bedrock image')).json['messages']).toEqual([
      { role: 'user', content: [{ text: 'bedrock image' }, { image: { format: 'png', source: { bytes: PNG } } }] },
    ]);
    const error = await rejectionOf(
      client.chat.completions.create({
        model: 'claude',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }],
      }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toContain('data URLs');
  });

  it("embeds with Titan (one InvokeModel a text) and Cohere (one for all), usage from Bedrock's token count header", async () => {
    const titan = await client.embeddings.create({ model: 'titan', input: ['one two', 'three'], dimensions: 4 }).withResponse();
    expect(titan.data.data.map((item) => item.embedding.length)).toEqual([4, 4]);
    expect(titan.data.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    // 3 tokens × $0.02/M
    expect(Number(titan.response.headers.get('x-arbor-response-cost'))).toBeCloseTo(3 * 0.02e-6, 15);
    expect((await lastRequestWith(fake, 'three')).json).toEqual({ inputText: 'three', dimensions: 4, normalize: true });

    const cohere = await client.embeddings.create({ model: 'cohere-embed', input: ['cohere one', 'cohere two'], encoding_format: 'float' });
    expect(cohere.data).toHaveLength(2);
    expect(cohere.data[1]?.embedding).toHaveLength(8);
    expect((await lastRequestWith(fake, 'cohere one')).json).toEqual({ texts: ['cohere one', 'cohere two'], input_type: 'search_document' });
  });

  it('passes a guardrail and top_k on to Bedrock, and inference profile ids in the path as given', async () => {
    // Bedrock's own request fields, as LiteLLM users send them through the OpenAI SDK.
    const extra = { guardrailConfig: { guardrailIdentifier: 'gr-abc123', guardrailVersion: '1', trace: 'enabled' }, top_k: 40 };
    await client.chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'bedrock guardrail' }], ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const seen = await lastRequestWith(fake, 'bedrock guardrail');
    expect(seen.json).toMatchObject({ guardrailConfig: extra.guardrailConfig, additionalModelRequestFields: { top_k: 40 } });
    expect(seen.path).toBe(`/bedrock/model/${encodeURIComponent('us.meta.llama3-3-70b-instruct-v1:0')}/converse`);
  });

  it('takes credentials from the standard AWS environment, session token included', async () => {
    const completion = await client.chat.completions.create({ model: 'llama-from-env', messages: [{ role: 'user', content: 'bedrock env credentials' }] });
    expect(completion.choices[0]?.message.content).toBe('fake answer from meta.llama3-3-70b-instruct-v1:0');
    const seen = await lastRequestWith(fake, 'bedrock env credentials');
    expect(seen.headers['x-amz-security-token']).toBe('fake-session-token');
    expect(seen.headers['authorization']).toContain('x-amz-security-token');
  });

  it('sends a Bedrock API key as a bearer token instead of a signature', async () => {
    const completion = await client.chat.completions.create({ model: 'llama-api-key', messages: [{ role: 'user', content: 'bedrock api key' }] });
    expect(completion.choices[0]?.message.content).toBe('fake answer from meta.llama3-1-8b-instruct-v1:0');
    const seen = await lastRequestWith(fake, 'bedrock api key');
    expect(seen.headers['authorization']).toBe(`Bearer ${BEDROCK_API_KEY}`);
    expect(seen.headers['x-amz-date']).toBeUndefined();
  });

  it.each([
    ['llama-assumed-role', 'AssumeRole', `RoleSessionName=arbor-ai-gateway`],
    ['llama-web-identity', 'AssumeRoleWithWebIdentity', 'WebIdentityToken=fake-oidc-token'],
  ])('signs with the temporary credentials of an assumed role (%s, through STS %s)', async (alias, action, sent) => {
    const marker = `bedrock ${alias}`;
    await client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: marker }] });
    const seen = await lastRequestWith(fake, marker);
    expect(seen.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=FAKESTS[0-9A-F]{12}\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(seen.headers['x-amz-security-token']).toMatch(/^fake-session-/);
    const sts = (await fake.requests()).filter((request) => request.path.startsWith('/sts')).map((request) => new URLSearchParams(request.body));
    expect(sts.find((form) => form.get('Action') === action && form.get('RoleArn') === ROLE && form.toString().includes(sent))).toBeDefined();
  });

  it.each([
    ['llama-bad-secret', AuthenticationError, 401, 'invalid_api_key'],
    ['throttled', RateLimitError, 429, 'rate_limit_exceeded'],
    ['denied', PermissionDeniedError, 403, 'access_denied'],
    ['invalid', BadRequestError, 400, 'validation'],
    ['too-long', BadRequestError, 400, 'context_length_exceeded'],
    ['loading', InternalServerError, 503, 'model_not_ready'],
  ] as const)('answers %s with the SDK error class of its Bedrock exception', async (alias, errorClass, status, code) => {
    const error = await rejectionOf(client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(errorClass);
    expect((error as InstanceType<typeof errorClass>).status).toBe(status);
    expect((error as InstanceType<typeof errorClass>).code).toBe(code);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('ends a stream whose ConverseStream sends an exception frame with an error the SDK throws', async () => {
    const stream = await client.chat.completions.create({ model: 'breaks', messages: [{ role: 'user', content: 'x' }], stream: true });
    const error = await rejectionOf(
      (async () => {
        for await (const _chunk of stream) {
          /* read to the end */
        }
      })(),
    );
    expect((error as Error).message).toContain('Too many requests');
  });

  it('passes /v1/messages through to Claude with InvokeModel: cache_control and thinking as sent, anthropic_version of Bedrock', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-cached',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'A long cached system prompt.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'bedrock native messages' }],
    });
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 5, cache_creation_input_tokens: 10, cache_read_input_tokens: 4 });
    const seen = await lastRequestWith(fake, 'bedrock native messages');
    expect(seen.path).toBe(`/bedrock/model/${encodeURIComponent('anthropic.claude-tokens-20-5-cache-10-4')}/invoke`);
    expect(seen.json).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 2048,
      system: [{ type: 'text', text: 'A long cached system prompt.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'bedrock native messages' }],
    });
  });

  it("streams /v1/messages from InvokeModelWithResponseStream as Anthropic's events", async () => {
    const stream = anthropic.messages.stream({ model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'bedrock streamed messages' }] });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: `fake answer from ${CLAUDE}` })]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(5);
    expect((await lastRequestWith(fake, 'bedrock streamed messages')).path).toBe(`/bedrock/model/${encodeURIComponent(CLAUDE)}/invoke-with-response-stream`);
  });

  it('serves /v1/messages on a model that is not Claude through Converse', async () => {
    const message = await anthropic.messages.create({ model: 'llama', max_tokens: 100, messages: [{ role: 'user', content: 'bedrock bridged messages' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'fake answer from us.meta.llama3-3-70b-instruct-v1:0' })]);
    expect(message.stop_reason).toBe('end_turn');
    expect((await lastRequestWith(fake, 'bedrock bridged messages')).path).toBe(`/bedrock/model/${encodeURIComponent('us.meta.llama3-3-70b-instruct-v1:0')}/converse`);
  });

  describe("token counts through Bedrock's CountTokens (the fake counts a token per word)", () => {
    const lastCount = async () => {
      const seen = (await fake.requests()).filter((request) => request.path.endsWith('/count-tokens')).at(-1);
      return { path: seen?.path, input: (JSON.parse(seen?.body ?? '{}') as { input: { invokeModel?: { body: string }; converse?: Record<string, unknown> } }).input };
    };

    it('counts /v1/messages/count_tokens on Claude as the InvokeModel body it would get', async () => {
      const { data, response } = await anthropic.messages
        .countTokens({ model: 'claude', system: 'Be brief.', messages: [{ role: 'user', content: 'count these four words' }] })
        .withResponse();
      expect(data.input_tokens).toBe(6);
      expect(response.headers.get('x-arbor-token-count')).toBe('provider');
      const { path, input } = await lastCount();
      expect(path).toBe(`/bedrock/model/${encodeURIComponent(CLAUDE)}/count-tokens`);
      expect(JSON.parse(Buffer.from(input.invokeModel?.body ?? '', 'base64').toString('utf8'))).toEqual({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 1,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'count these four words' }],
      });
    });

    it('counts other models as their Converse request, under the foundation model id of an inference profile', async () => {
      const counted = await anthropic.messages.countTokens({ model: 'llama', system: 'Be brief.', messages: [{ role: 'user', content: 'five words to count here' }] });
      expect(counted.input_tokens).toBe(7);
      const { path, input } = await lastCount();
      expect(path).toBe(`/bedrock/model/${encodeURIComponent('meta.llama3-3-70b-instruct-v1:0')}/count-tokens`);
      expect(input.converse).toEqual({ messages: [{ role: 'user', content: [{ text: 'five words to count here' }] }], system: [{ text: 'Be brief.' }] });
    });

    it('counts /v1/responses/input_tokens the same way', async () => {
      const counted = await client.responses.inputTokens.count({ model: 'claude', instructions: 'Be brief.', input: 'three words here' });
      expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: 5 });
      expect((await lastCount()).input.converse).toMatchObject({ system: [{ text: 'Be brief.' }] });
    });
  });
});
