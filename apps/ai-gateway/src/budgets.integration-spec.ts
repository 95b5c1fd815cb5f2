// Budget levels above the key as a company meets them: the workspace budget of a LiteLLM config
// (litellm_settings.max_budget + budget_duration), spent by calls of several projects' keys through
// the official OpenAI and Anthropic SDKs and a pass-through, against tools/fake-providers.
import Anthropic, { BadRequestError as AnthropicBadRequestError } from '@anthropic-ai/sdk';
import OpenAI, { BadRequestError } from 'openai';
import { Client } from 'pg';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { asMaster, MASTER_KEY, rejectionOf, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

describe('the workspace budget (litellm_settings.max_budget)', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let config: string;
  let gateway: RunningService<AiGatewayConfig>;

  const createKey = async (project: string): Promise<string> => {
    const response = await fetch(`${gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project }) });
    expect(response.status).toBe(201);
    return ((await response.json()) as { key: string }).key;
  };
  const chat = (key: string, content = 'hello') =>
    new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content }] });
  const upstreamCalls = async () => (await fake.requests()).length;

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    // One call of "hello" costs 7 × 0.001 + 5 × 0.002 = 0.017 USD: the budget holds two calls.
    config = writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
litellm_settings:
  max_budget: 0.03
  budget_duration: 1d
  timezone: Europe/Paris
`);
    gateway = await startTestGateway(database, config);
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('counts the calls of every project, then refuses every key on every route, naming the workspace, before any upstream', async () => {
    const alpha = await createKey('alpha');
    const beta = await createKey('beta');
    await chat(alpha);
    await chat(beta);
    const before = await upstreamCalls();

    const refused = await rejectionOf(chat(alpha));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'budget_exceeded' });
    expect((refused as BadRequestError).message).toBe('400 Budget has been exceeded! Current cost: 0.034, Max budget: 0.03 (the workspace budget, litellm_settings.max_budget)');

    // The Messages API, in the family's own SDK.
    const messages = await rejectionOf(
      new Anthropic({ apiKey: beta, baseURL: gateway.url, maxRetries: 0 }).messages.create({ model: 'fast', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] }),
    );
    expect(messages).toBeInstanceOf(AnthropicBadRequestError);
    expect((messages as AnthropicBadRequestError).message).toContain('the workspace budget');

    // The vendor pass-through, and the master key: the workspace is everyone's.
    const passThrough = await fetch(`${gateway.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${beta}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(passThrough.status).toBe(400);
    expect(((await passThrough.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
    expect(await rejectionOf(chat(MASTER_KEY))).toMatchObject({ status: 400, code: 'budget_exceeded' });

    expect(await upstreamCalls()).toBe(before);
  });

  it('keeps what was spent in the period across a restart: the next gateway on the database still refuses', async () => {
    const alpha = await createKey('alpha');
    await gateway.close();
    gateway = await startTestGateway(database, config);
    expect(await rejectionOf(chat(alpha))).toMatchObject({ status: 400, code: 'budget_exceeded' });
    const pg = new Client({ connectionString: database.url });
    await pg.connect();
    try {
      expect((await pg.query('select level, subject, spend::text as spend from budget_spend')).rows).toEqual([{ level: 'workspace', subject: '', spend: '0.034' }]);
    } finally {
      await pg.end();
    }
  });
});

describe('budgets while the shared Redis is gone (AIGW_BUDGETS_WITHOUT_REDIS)', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  const running: RunningService<AiGatewayConfig>[] = [];

  // A Redis nobody listens on: configured, never reachable.
  const start = async (budgets: string, env: Record<string, string>): Promise<RunningService<AiGatewayConfig>> => {
    const config = writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
${budgets}`);
    const gateway = await startTestGateway(database, config, { AIGW_REDIS_URL: 'redis://127.0.0.1:1', ...env });
    running.push(gateway);
    return gateway;
  };
  const chat = (gateway: RunningService<AiGatewayConfig>) =>
    new OpenAI({ apiKey: MASTER_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }] });

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
  });

  afterAll(async () => {
    for (const gateway of running) await gateway.close();
    await database?.drop();
    await fake?.stop();
  });

  it('refuses the calls a budget level applies to with 503 by default (closed), since spend elsewhere is unknown', async () => {
    const gateway = await start('litellm_settings: { max_budget: 10 }\n', {});
    expect(await rejectionOf(chat(gateway))).toMatchObject({ status: 503, code: 'budget_check_unavailable' });
  });

  it('counts on in the replica alone when told to (open), and never holds back calls no budget level applies to', async () => {
    await expect(chat(await start('litellm_settings: { max_budget: 10 }\n', { AIGW_BUDGETS_WITHOUT_REDIS: 'open' }))).resolves.toBeDefined();
    await expect(chat(await start('', {}))).resolves.toBeDefined();
  });
});
