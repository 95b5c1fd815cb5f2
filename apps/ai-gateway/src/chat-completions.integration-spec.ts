// The gateway as application developers meet it: the official OpenAI SDK against the gateway,
// the gateway against tools/fake-providers (a child process, as Node runs it).
import OpenAI, { APIUserAbortError, AuthenticationError, InternalServerError, NotFoundError, RateLimitError } from 'openai';
import { ConfigError } from '@arbor/config';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, runBuiltApp, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { asMaster, MASTER_KEY, sdkClient, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, fakeUrl: string, extra = '') => `
  - model_name: ${alias}
    litellm_params:
      model: openai/${model}
      api_base: ${fakeUrl}/v1
      api_key: os.environ/AIGW_TEST_UPSTREAM_KEY${extra}`;

describe('ai-gateway OpenAI-format routes through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;

  const seenByFake = async (): Promise<{ body: string; aborted: boolean; headers: Record<string, string> }[]> =>
    (await fetch(`${fake.url}/_fake/requests`)).json() as Promise<{ body: string; aborted: boolean; headers: Record<string, string> }[]>;

  beforeAll(async () => {
    process.env['AIGW_TEST_UPSTREAM_KEY'] = 'sk-upstream-secret';
    fake = await startFake();
    database = await createTestDatabase();
    const config = writeConfig(`model_list:${[
      deployment('fast', 'gpt-4o-mini', fake.url, '\n    model_info: { id: fast-primary }'),
      deployment('shuffled', 'gpt-4o', fake.url, '\n    model_info: { id: shuffle-a }'),
      deployment('shuffled', 'fake-small', fake.url, '\n    model_info: { id: shuffle-b }'),
      deployment('limited', 'fail-429', fake.url),
      deployment('broken', 'fail-500', fake.url),
      deployment('slow-stream', 'hold-stream-test', fake.url),
      deployment('held-stream', 'hold-never-released', fake.url),
      deployment('priced-held', 'hold-priced-never-released', fake.url, '\n    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }'),
      deployment('priced-silent', 'fail-timeout', fake.url, '\n    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }'),
    ].join('')}
  - model_name: translated
    litellm_params: { model: anthropic/claude-test, api_base: ${fake.url}/anthropic, api_key: sk-ant-upstream }
litellm_settings:
  drop_params: true
`);
    gateway = await startTestGateway(database, config);
    client = sdkClient(gateway);
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('answers a chat completion from the alias deployment, passing request and answer through', async () => {
    const { data, response } = await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }], temperature: 0.2 }).withResponse();
    expect(data.choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
    expect(data.usage?.total_tokens).toBe(12);
    // The upstream got the provider model, the client's parameters and the provider key, not the master key.
    const echo = (data as unknown as { fake_echo: { body: Record<string, unknown>; authorization: string } }).fake_echo;
    expect(echo.body).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], temperature: 0.2 });
    expect(echo.authorization).toBe('Bearer sk-upstream-secret');
    expect(response.headers.get('x-arbor-call-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-arbor-model-group')).toBe('fast');
    expect(response.headers.get('x-arbor-model-id')).toBe('fast-primary');
    expect(response.headers.get('x-arbor-attempted-retries')).toBe('0');
    expect(Number(response.headers.get('x-arbor-response-duration-ms'))).toBeGreaterThan(0);
    expect(response.headers.get('llm_provider-x-fake-received-model')).toBe('gpt-4o-mini');
    expect(response.headers.get('llm_provider-openai-processing-ms')).toBe('1');
  });

  it('drops a parameter a translated provider does not support when litellm_settings.drop_params is on', async () => {
    const { data } = await client.chat.completions
      .create({ model: 'translated', messages: [{ role: 'user', content: 'global-drop' }], logit_bias: { '50256': -100 }, temperature: 0.1 })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('fake answer from claude-test');
    const record = (await seenByFake()).find((r) => r.body.includes('global-drop'));
    const sent = JSON.parse(record?.body ?? '{}') as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'claude-test', temperature: 0.1 });
    expect(sent).not.toHaveProperty('logit_bias');
  });

  it('serves the same route without /v1 and accepts the key in x-api-key', async () => {
    const response = await fetch(`${gateway.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': MASTER_KEY },
      body: JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('gpt-4o-mini');
  });

  it('spreads calls to an alias over all its deployments', async () => {
    const served = new Set<string | null>();
    for (let i = 0; i < 24; i++) {
      const { response } = await client.chat.completions.create({ model: 'shuffled', messages: [{ role: 'user', content: 'x' }] }).withResponse();
      served.add(response.headers.get('x-arbor-model-id'));
    }
    expect([...served].sort()).toEqual(['shuffle-a', 'shuffle-b']);
  });

  it('streams chunk by chunk, before the upstream has finished', async () => {
    const { data: stream, response } = await client.chat.completions.create({ model: 'slow-stream', messages: [{ role: 'user', content: 'x' }], stream: true }).withResponse();
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // The fake holds its stream after the first chunk until released: a gateway that buffered
    // would deliver nothing until then, and this first read would time out.
    const chunks = stream[Symbol.asyncIterator]();
    const first = await Promise.race([
      chunks.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no chunk while the upstream held its stream: buffered')), 10_000)),
    ]);
    expect(first.done).toBe(false);
    await fetch(`${fake.url}/_fake/release/stream-test`, { method: 'POST' });
    let text = '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) text += next.value.choices[0]?.delta.content ?? '';
    expect(text).toBe('fake answer from hold-stream-test ');
  });

  it('aborts the upstream call when the client goes away mid-stream', async () => {
    // The upstream holds its stream after the first chunk and is never released: only an abort ends it.
    const stream = await client.chat.completions.create({ model: 'held-stream', messages: [{ role: 'user', content: 'abort me' }], stream: true });
    for await (const _chunk of stream) {
      stream.controller.abort();
      break;
    }
    const deadline = Date.now() + 3000;
    let record: { aborted: boolean } | undefined;
    while (Date.now() < deadline) {
      record = (await seenByFake()).reverse().find((r) => r.body.includes('abort me'));
      if (record?.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(record?.aborted).toBe(true);
  });

  /** A new key of its own project, so that its spend is one test's alone. */
  const newKey = async (project: string): Promise<{ id: string; key: string }> => {
    const created = await fetch(`${gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project }) });
    return (await created.json()) as { id: string; key: string };
  };

  /** Waits until the fake saw the upstream call carrying `prompt` stopped by the gateway. */
  const upstreamAborted = async (prompt: string): Promise<boolean> => {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      if ((await seenByFake()).some((r) => r.body.includes(prompt) && r.aborted)) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  };

  /** The key's spend report once it counts one call: spend is written behind the request, so it is asked until then. */
  const spendOfOneCall = async (keyId: string): Promise<{ spend: number; totals: Record<string, number> } | undefined> => {
    const deadline = Date.now() + 5000;
    let report: { spend: number; totals: Record<string, number> } | undefined;
    while (Date.now() < deadline) {
      report = (await (await fetch(`${gateway.url}/api/v1/keys/${keyId}/spend`, { headers: asMaster })).json()) as typeof report;
      if (report?.totals['requests'] === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return report;
  };

  it('still records an estimated spend for the key when its client hangs up mid-stream', async () => {
    const key = await newKey('hang-ups');
    const prompt = 'a question whose answer nobody reads';
    const stream = await sdkClient(gateway, key.key).chat.completions.create({ model: 'priced-held', messages: [{ role: 'user', content: prompt }], stream: true });
    for await (const _chunk of stream) {
      stream.controller.abort();
      break;
    }

    // The upstream saw the abort, so it never sent its usage chunk.
    expect(await upstreamAborted(prompt)).toBe(true);
    const report = await spendOfOneCall(key.id);
    // o200k_base: 3 for the reply, 3 for the message, then "user\n" + the prompt (8 tokens).
    const promptTokens = 3 + 3 + 8;
    expect(report?.totals).toMatchObject({ requests: 1, estimated_requests: 1, prompt_tokens: promptTokens, completion_tokens: 0 });
    expect(report?.totals['estimated_cost_usd']).toBeCloseTo(promptTokens * 0.001, 10);
    expect(report?.spend).toBeCloseTo(promptTokens * 0.001, 10);
  });

  it('records the prompt as estimated spend when its client hangs up before any answer', async () => {
    const key = await newKey('early-hang-ups');
    const prompt = 'a question whose answer nobody waits for';
    const hangUp = new AbortController();
    const call = sdkClient(gateway, key.key)
      .chat.completions.create({ model: 'priced-silent', messages: [{ role: 'user', content: prompt }] }, { signal: hangUp.signal, maxRetries: 0 })
      .catch((error: unknown) => error);
    // Hung up once the upstream is working on it (the fake never answers this model).
    for (const deadline = Date.now() + 5000; Date.now() < deadline && !(await seenByFake()).some((r) => r.body.includes(prompt));) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    hangUp.abort();
    expect(await call).toBeInstanceOf(APIUserAbortError);

    expect(await upstreamAborted(prompt)).toBe(true);
    const report = await spendOfOneCall(key.id);
    // o200k_base: 3 for the reply, 3 for the message, then "user\n" + the prompt (9 tokens).
    const promptTokens = 3 + 3 + 9;
    expect(report?.totals).toMatchObject({ requests: 1, estimated_requests: 1, prompt_tokens: promptTokens, completion_tokens: 0 });
    expect(report?.spend).toBeCloseTo(promptTokens * 0.001, 10);
  });

  it('lists aliases (never provider models) and retrieves one', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(['broken', 'fast', 'held-stream', 'limited', 'priced-held', 'priced-silent', 'shuffled', 'slow-stream', 'translated']);
    expect((await client.models.retrieve('fast')).id).toBe('fast');
    await expect(client.models.retrieve('gpt-4o-mini')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a wrong or missing key with 401 in the OpenAI-format envelope (AuthenticationError)', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const error = await stranger.chat.completions.create({ model: 'fast', messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).error).toEqual({ message: 'The API key is not valid.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' });
    const missing = await fetch(`${gateway.url}/v1/models`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
  });

  it('maps an upstream 429 to RateLimitError and keeps Retry-After', async () => {
    const error = await client.chat.completions.create({ model: 'limited', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('rate_limit_exceeded');
    expect((error as RateLimitError).headers.get('retry-after')).toBe('1');
    expect((error as RateLimitError).headers.get('x-arbor-model-group')).toBe('limited');
  });

  it('maps an upstream 500 to InternalServerError in the OpenAI-format envelope', async () => {
    const error = await client.chat.completions.create({ model: 'broken', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(500);
    expect((error as InternalServerError).type).toBe('server_error');
  });

  it('answers an unknown alias with NotFoundError naming it', async () => {
    const error = await client.chat.completions.create({ model: 'no-such-alias', messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toContain('no-such-alias');
    expect((error as NotFoundError).param).toBe('model');
  });

  it('says that stored completions are not served', async () => {
    const error = await client.chat.completions.retrieve('chatcmpl-123').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).message).toContain('Stored chat completions are not served');
  });
});

describe('ai-gateway AIGW_CONFIG start-up checks', () => {
  const badConfig = () => writeConfig('model_list:\n  - model_name: a\n    litellm_params: { model: openai/x, bogus: 1 }\nrouter_settings: { num_retrys: 2 }\n');

  it('refuses to start in process with a ConfigError naming every unknown key', async () => {
    const error = await startService(aiGatewayService, {
      AIGW_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      AIGW_LISTEN_ADDR: '127.0.0.1:0',
      AIGW_LOG: 'off',
      AIGW_CONFIG: badConfig(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).lines()).toEqual([
      expect.stringMatching(/^AIGW_CONFIG: model_list\[0\]\.litellm_params\.bogus: unknown key/),
      expect.stringMatching(/^AIGW_CONFIG: router_settings\.num_retrys: unknown key/),
    ]);
  });

  it('exits 1 from the built file, one stderr line per problem', async () => {
    const result = await runBuiltApp('ai-gateway', {
      AIGW_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      AIGW_LISTEN_ADDR: '127.0.0.1:0',
      AIGW_CONFIG: badConfig(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ {2}AIGW_CONFIG: model_list\[0\]\.litellm_params\.bogus: unknown key/m);
    expect(result.stderr).toMatch(/^ {2}AIGW_CONFIG: router_settings\.num_retrys: unknown key/m);
  });
});
