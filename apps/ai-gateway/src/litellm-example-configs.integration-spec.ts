// A LiteLLM user switching without editing a file: LiteLLM's own published example configs
// (fixtures/litellm/, copied unchanged, each naming its source) start the gateway and serve their
// aliases through the official OpenAI SDK. Their api_base values name real hosts (or none, or
// localhost's Ollama): AIGW_API_BASE_OVERRIDES sends each provider's deployments to
// tools/fake-providers instead, the one thing this test sets that a user would not.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { ConfigError } from '@arbor/config';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, startFakeProviders, TestDatabase } from '@arbor/testing';
import type { AiGatewayConfig } from '@arbor/config';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, MASTER_KEY, requestAsSent, sdkClient, writeConfig } from './testing/gateway-test-support';

const FIXTURES = path.join(__dirname, 'fixtures/litellm');

interface ExampleConfig {
  file: string;
  /** Each alias the config serves, and the upstream model (or Azure deployment) it reaches. */
  serves: Record<string, string[]>;
  /** Aliases whose provider this gateway does not serve: the start goes on, the call is a 400. */
  unserved?: string[];
}

const EXAMPLES: ExampleConfig[] = [
  { file: 'simple_config.yaml', serves: { 'gpt-3.5-turbo': ['gpt-5-mini'] } },
  // `mistralai/mistral-7b-instruct` carries no provider: the maintained catalogue knows it as OpenRouter's, as LiteLLM's map does.
  { file: 'load_balancer.yaml', serves: { 'gpt-3.5-turbo': ['gpt-3.5-turbo'], 'mistral-7b-instruct': ['mistralai/mistral-7b-instruct'] } },
  { file: 'azure_config.yaml', serves: { 'gpt-4-team1': ['chatgpt-v-2'], 'gpt-4-team2': ['gpt-4'] } },
  { file: 'azure_config_with_tpm.yaml', serves: { 'gpt-3.5-turbo': ['gpt-35-1', 'gpt-35-2'] } },
  { file: 'aliases_config.yaml', serves: { 'text-davinci-003': ['zephyr'], 'gpt-4': ['llama2'], 'gpt-3.5-turbo': ['llama2'] } },
  { file: 'multi_instance_simple_config.yaml', serves: { 'fake-openai-endpoint': ['my-fake-model'] } },
  { file: 'spend_tracking_config.yaml', serves: { 'fake-openai-endpoint': ['gpt-5-mini'] } },
  { file: 'prometheus_test_config.yaml', serves: { 'fake-openai-endpoint': ['fake'] } },
];

// The variables LiteLLM's examples name with os.environ/ (a user has them set already).
// load_balancer.yaml's openrouter deployment has no api_key of its own: without OPENROUTER_API_KEY a
// third of its calls would be refused upstream.
const USER_VARIABLES = ['AZURE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY', 'LITELLM_MASTER_KEY', 'FAKE_OPENAI_API_BASE', 'AZURE_API_BASE'];
// What load_balancer.yaml's environment_variables set.
const FILE_VARIABLES = ['REDIS_HOST', 'REDIS_PASSWORD', 'REDIS_PORT'];
// The other variables LiteLLM's root proxy_server_config.yaml names, as a user of its providers has them.
const ROOT_CONFIG_VARIABLES = ['GROQ_API_KEY', 'GOOGLE_API_KEY', 'AWS_REGION'];

describe("LiteLLM's published example configs on the gateway, unchanged", () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let overrides: string;

  beforeAll(async () => {
    fake = await startFakeProviders();
    database = await createTestDatabase();
    overrides = ['openai', 'openrouter']
      .map((provider) => `${provider}=${fake.url}/openai`)
      .concat(`azure=${fake.url}/azure`, `anthropic=${fake.url}/anthropic`, `ollama=${fake.url}/ollama`)
      .join(',');
    Object.assign(process.env, {
      AZURE_API_KEY: 'azure-upstream-key',
      ANTHROPIC_API_KEY: 'anthropic-upstream-key',
      OPENAI_API_KEY: 'openai-upstream-key',
      OPENROUTER_API_KEY: 'openrouter-upstream-key',
      LITELLM_MASTER_KEY: 'sk-litellm-master',
      FAKE_OPENAI_API_BASE: `${fake.url}/openai`,
      AZURE_API_BASE: `${fake.url}/azure`,
    });
  });

  afterAll(async () => {
    await database?.drop();
    await fake?.stop();
    for (const name of [...USER_VARIABLES, ...FILE_VARIABLES, ...ROOT_CONFIG_VARIABLES]) delete process.env[name];
  });

  const start = (file: string, extra: Record<string, string> = {}): Promise<RunningService<AiGatewayConfig>> =>
    startService(aiGatewayService, {
      AIGW_DATABASE_URL: database.url,
      AIGW_LISTEN_ADDR: '127.0.0.1:0',
      AIGW_LOG: 'off',
      AIGW_CONFIG: file,
      AIGW_MASTER_KEY: MASTER_KEY,
      AIGW_API_BASE_OVERRIDES: overrides,
      ...extra,
    });

  it.each(EXAMPLES)('$file starts and serves its aliases', async ({ file, serves, unserved }) => {
    const gateway = await start(path.join(FIXTURES, file));
    try {
      const client = sdkClient(gateway);
      for (const [alias, upstreamModels] of Object.entries(serves)) {
        const marker = `${file} ${alias}`;
        const answer = await client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: marker }] });
        expect(upstreamModels.map((model) => `fake answer from ${model}`)).toContain(answer.choices[0]?.message.content);
        await lastRequestWith(fake, marker);
      }
      const listed = (await client.models.list()).data.map((model) => model.id);
      expect(listed).toEqual(expect.arrayContaining(Object.keys(serves)));
      for (const alias of unserved ?? []) {
        const refused = await client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: 'hi' }] }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
        expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(new RegExp(`The model "${alias}" cannot be called: .*not served by this gateway`));
      }
    } finally {
      await gateway.close();
    }
  });

  it("aliases_config.yaml: the deployment's temperature and max_tokens reach the upstream unless the request sets its own", async () => {
    const gateway = await start(path.join(FIXTURES, 'aliases_config.yaml'));
    try {
      const client = sdkClient(gateway);
      await client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'defaults only' }] });
      expect((await lastRequestWith(fake, 'defaults only')).json).toMatchObject({ model: 'llama2', temperature: 0.1, max_tokens: 20 });
      await client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'request wins' }], temperature: 0.9 });
      expect((await lastRequestWith(fake, 'request wins')).json).toMatchObject({ temperature: 0.9, max_tokens: 20 });
      await client.chat.completions.create({ model: 'gpt-4', messages: [{ role: 'user', content: 'no defaults here' }] });
      expect((await lastRequestWith(fake, 'no defaults here')).json).not.toHaveProperty('temperature');
    } finally {
      await gateway.close();
    }
  });

  it('load_balancer.yaml: environment_variables are set before the rest is read', async () => {
    const gateway = await start(path.join(FIXTURES, 'load_balancer.yaml'));
    await gateway.close();
    expect({ REDIS_HOST: process.env['REDIS_HOST'], REDIS_PASSWORD: process.env['REDIS_PASSWORD'], REDIS_PORT: process.env['REDIS_PORT'] }).toEqual({
      REDIS_HOST: 'localhost',
      REDIS_PASSWORD: 'eYVX71',
      REDIS_PORT: '6329',
    });
  });

  describe("LiteLLM's root proxy_server_config.yaml (router_settings with Redis, usage-based-routing-v2, pre-call checks, model_group_alias)", () => {
    let gateway: RunningService<AiGatewayConfig>;

    beforeAll(async () => {
      // Its Redis is the local one (REDIS_PASSWORD unset, as LiteLLM reads an empty one), and so the gateway's.
      Object.assign(process.env, {
        REDIS_HOST: '127.0.0.1',
        REDIS_PORT: '6379',
        GROQ_API_KEY: 'groq-upstream-key',
        GOOGLE_API_KEY: 'gemini-upstream-key',
        AWS_REGION: 'us-east-1',
      });
      delete process.env['REDIS_PASSWORD'];
      gateway = await start(path.join(FIXTURES, 'proxy_server_config.yaml'));
    });

    afterAll(async () => {
      await gateway?.close();
    });

    it('starts, and its model_group_alias answers a chat completion through the official OpenAI SDK, from the group it names', async () => {
      const client = sdkClient(gateway);
      const answered = new Set<string>();
      for (const turn of [1, 2]) {
        const marker = `group alias turn ${turn}`;
        const { data, response } = await client.chat.completions
          .create({ model: 'my-special-fake-model-alias-name', messages: [{ role: 'user', content: marker }] })
          .withResponse();
        expect(response.headers.get('x-arbor-model-group')).toBe('fake-openai-endpoint-3');
        answered.add(data.choices[0]?.message.content ?? '');
        expect((await lastRequestWith(fake, marker)).path).toBe('/openai/v1/chat/completions');
      }
      // usage-based-routing-v2: the second call goes to the deployment that has used fewer tokens this minute.
      expect(answered).toEqual(new Set(['fake answer from my-fake-model', 'fake answer from my-fake-model-2']));
      const listed = (await client.models.list()).data.map((model) => model.id);
      expect(listed).toEqual(expect.arrayContaining(['my-special-fake-model-alias-name', 'fake-openai-endpoint-3', 'fake-openai-endpoint', 'gpt-4o']));
    });

    it('lets a key allowed the group call its model_group_alias name too, and a key allowed neither call none', async () => {
      const keyFor = async (aliases: string[]) => {
        const created = await fetch(`${gateway.url}/api/v1/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ project: 'alpha', aliases }),
        });
        expect(created.status).toBe(201);
        return ((await created.json()) as { key: string }).key;
      };
      const groupKey = sdkClient(gateway, await keyFor(['fake-openai-endpoint-3']));
      const answer = await groupKey.chat.completions.create({ model: 'my-special-fake-model-alias-name', messages: [{ role: 'user', content: 'alias by group key' }] });
      expect(answer.choices[0]?.message.content).toMatch(/^fake answer from my-fake-model(-2)?$/);
      expect((await groupKey.models.list()).data.map((model) => model.id).sort()).toEqual(['fake-openai-endpoint-3', 'my-special-fake-model-alias-name']);
      const otherKey = sdkClient(gateway, await keyFor(['gpt-4o']));
      const refused = await otherKey.chat.completions.create({ model: 'my-special-fake-model-alias-name', messages: [{ role: 'user', content: 'not mine' }] }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    });

    it("answers the root config's other aliases: a fake endpoint, an unprefixed known model, the catch-all wildcard", async () => {
      const client = sdkClient(gateway);
      for (const [alias, upstream] of [
        ['fake-openai-endpoint', 'gpt-3.5-turbo-0301'],
        ['gpt-4o', 'gpt-4o'],
        ['gpt-4.1-mini', 'gpt-4.1-mini'],
      ] as const) {
        const answer = await client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: `root config ${alias}` }] });
        expect(answer.choices[0]?.message.content).toBe(`fake answer from ${upstream}`);
      }
    });
  });

  it('pass_through_config.yaml stops the start with one line: its Python custom_auth hook cannot run here', async () => {
    const failure = await start(path.join(FIXTURES, 'pass_through_config.yaml')).then(
      async (gateway) => {
        await gateway.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).lines()).toEqual([
      'AIGW_CONFIG: general_settings.custom_auth: refused: a Python hook the gateway cannot run; serving without it would let in callers it refuses',
    ]);
  });

  describe('pass_through_config.yaml without its custom_auth line', () => {
    let gateway: RunningService<AiGatewayConfig>;
    let client: OpenAI;

    let virtualKey: string;

    beforeAll(async () => {
      // The pass-through target is an OpenAI-shaped fake that takes the configured Authorization header.
      Object.assign(process.env, { AZURE_API_BASE: `${fake.url}/openai`, AZURE_API_KEY: 'Bearer pass-through-upstream-key' });
      const text = readFileSync(path.join(FIXTURES, 'pass_through_config.yaml'), 'utf8').replace(/^\s*custom_auth: .*\n/m, '');
      gateway = await start(writeConfig(text));
      client = sdkClient(gateway);
      const created = await fetch(`${gateway.url}/api/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project: 'alpha', aliases: ['anthropic/*', 'claude-special-alias'] }),
      });
      expect(created.status).toBe(201);
      virtualKey = ((await created.json()) as { key: string }).key;
    });

    afterAll(async () => {
      await gateway?.close();
    });

    it('serves its aliases, and any Anthropic or OpenAI model under its own name through the wildcard aliases', async () => {
      for (const [alias, upstream] of [
        ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929'],
        ['claude-special-alias', 'claude-haiku-4-5-20251001'],
        ['claude-sonnet-4-6', 'claude-sonnet-4-6'],
        ['anthropic/claude-opus-4-1', 'claude-opus-4-1'],
        ['openai/gpt-4.1-mini', 'gpt-4.1-mini'],
        ['fake-openai-endpoint', 'fake'],
      ] as const) {
        const { data, response } = await client.chat.completions.create({ model: alias, messages: [{ role: 'user', content: `wildcard ${alias}` }] }).withResponse();
        expect(data.choices[0]?.message.content).toBe(`fake answer from ${upstream}`);
        expect(response.headers.get('x-arbor-model-group')).toBe(alias);
      }
    });

    it("lists the exact aliases and each wildcard's known models, as LiteLLM's /v1/models does; the wildcard aliases themselves on request", async () => {
      const listed = (await client.models.list()).data.map((model) => model.id);
      expect(listed).toEqual(
        expect.arrayContaining([
          'fake-openai-endpoint',
          'claude-sonnet-4-5-20250929',
          'claude-special-alias',
          'claude-sonnet-4-6',
          'anthropic/claude-sonnet-4-5',
          'openai/gpt-4o-mini',
        ]),
      );
      expect(listed).not.toContain('anthropic/*');
      const response = await fetch(`${gateway.url}/v1/models?return_wildcard_routes=true`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
      expect(((await response.json()) as { data: { id: string }[] }).data.map((model) => model.id)).toEqual(expect.arrayContaining(['anthropic/*', 'openai/*']));
    });

    it("puts the call's cost in the streamed usage chunk (include_cost_in_streaming_usage: true)", async () => {
      const stream = await client.chat.completions.create({
        model: 'openai/gpt-4o',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'cost please' }],
      });
      let usage: Record<string, unknown> | undefined;
      for await (const chunk of stream) if (chunk.usage) usage = chunk.usage as unknown as Record<string, unknown>;
      // gpt-4o's list price: 7 prompt tokens at $2.50 and 5 completion tokens at $10 per million.
      expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, cost: 0.0000675 });
    });

    it('lets a key allowed `anthropic/*` call any name that wildcard serves, and nothing else', async () => {
      const restricted = sdkClient(gateway, virtualKey);
      const answer = await restricted.chat.completions.create({ model: 'anthropic/claude-opus-4-1', messages: [{ role: 'user', content: 'restricted wildcard' }] });
      expect(answer.choices[0]?.message.content).toBe('fake answer from claude-opus-4-1');
      await restricted.chat.completions.create({ model: 'claude-special-alias', messages: [{ role: 'user', content: 'restricted exact' }] });
      const refused = await restricted.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'not allowed' }] }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
      const listed = (await restricted.models.list()).data.map((model) => model.id);
      expect(listed).toContain('anthropic/claude-sonnet-4-5');
      expect(listed).toContain('claude-special-alias');
      expect(listed.filter((id) => id.startsWith('openai/') || id === 'fake-openai-endpoint')).toEqual([]);
    });

    it('forwards its pass-through endpoint with the virtual key checked: subpath, query and body as sent, the configured Authorization instead of the key', async () => {
      const url = `${gateway.url}/azure-config-passthrough/v1/chat/completions?trace=1`;
      const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'through the pass-through' }] });
      const anonymous = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
      const bad = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer sk-arbor-not-a-key', 'content-type': 'application/json' }, body });
      expect(bad.status).toBe(401);
      expect((await fake.requests()).filter((seen) => seen.body.includes('through the pass-through'))).toEqual([]);

      const answered = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${virtualKey}`, 'content-type': 'application/json' }, body });
      expect(answered.status).toBe(200);
      expect(((await answered.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('fake answer from gpt-4o');
      const seen = await lastRequestWith(fake, 'through the pass-through');
      expect(seen.path).toBe('/openai/v1/chat/completions?trace=1');
      expect(seen.headers['authorization']).toBe('Bearer pass-through-upstream-key');
      expect(seen.body).toBe(body);

      const streamed = await fetch(url, {
        method: 'POST',
        headers: { 'x-api-key': virtualKey, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'streamed pass-through' }] }),
      });
      expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = await streamed.text();
      expect(events).toContain('data: [DONE]');
      expect(events).toContain('"content":"answer "');

      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(metrics).toMatch(/arbor_aigw_pass_through_requests_total\{path="\/azure-config-passthrough",status="200",service="ai-gateway"\} 2/);
      expect(metrics).toMatch(/arbor_aigw_pass_through_requests_total\{path="\/azure-config-passthrough",status="401",service="ai-gateway"\} 2/);
    });

    it("keeps its pass-through endpoint below the target's path, and sends the target none of the caller's credentials or cookies", async () => {
      for (const escape of ['/%2e%2e/_fake/requests', '/.%2e/_fake/requests', '/%252e%252e/_fake/requests', '/..%5c_fake/requests', '/v1//x']) {
        const answer = await requestAsSent(gateway.url, `/azure-config-passthrough${escape}`, { authorization: `Bearer ${virtualKey}` });
        expect({ escape, status: answer.status, code: (JSON.parse(answer.body) as { error: { code: string } }).error.code }).toEqual({
          escape,
          status: 400,
          code: 'invalid_pass_through_path',
        });
      }
      const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'no caller credentials' }] });
      const answered = await fetch(`${gateway.url}/azure-config-passthrough/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-api-key': virtualKey, 'api-key': virtualKey, cookie: 'session=caller', 'content-type': 'application/json' },
        body,
      });
      expect(answered.status).toBe(200);
      const seen = await lastRequestWith(fake, 'no caller credentials');
      expect(seen.headers['authorization']).toBe('Bearer pass-through-upstream-key');
      for (const name of ['x-api-key', 'api-key', 'cookie']) expect(seen.headers).not.toHaveProperty(name);
    });
  });
});
