// Key limits as clients meet them on two gateway replicas: two built gateway PROCESSES sharing one
// database and one Redis, the official OpenAI SDK against them, the upstream from tools/fake-providers.
// Needs `npx nx build ai-gateway` first (dist/apps/ai-gateway/main.js).
import OpenAI, { BadRequestError, RateLimitError } from 'openai';
import request from 'supertest';
import { BuiltService, createTestDatabase, FakeProvidersProcess, startBuiltService, TestDatabase } from '@arbor/testing';
import { MASTER_KEY, startFake, writeConfig } from './testing/gateway-test-support';

describe('ai-gateway key limits across two replicas sharing Redis', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let replicaA: BuiltService;
  let replicaB: BuiltService;

  const asMaster = { authorization: `Bearer ${MASTER_KEY}` };
  const client = (replica: BuiltService, apiKey: string) => new OpenAI({ apiKey, baseURL: `${replica.url}/v1`, maxRetries: 0 });
  const chat = (replica: BuiltService, apiKey: string) =>
    client(replica, apiKey)
      .chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
  const createKey = async (body: Record<string, unknown>): Promise<{ id: string; key: string }> =>
    (
      await request(replicaA.url)
        .post('/api/v1/keys')
        .set(asMaster)
        .send({ project: 'alpha', ...body })
        .expect(201)
    ).body as { id: string; key: string };

  // rpm counts in whole minutes: start a burst with room left in the current one.
  const withRoomInTheMinute = async (ms: number) => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < ms) await new Promise((resolve) => setTimeout(resolve, left + 50));
  };

  beforeAll(async () => {
    const redisUrl = process.env['TEST_REDIS_URL'];
    if (!redisUrl) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    fake = await startFake();
    database = await createTestDatabase();
    const config = writeConfig(`model_list:
  - model_name: fast
    litellm_params:
      model: openai/gpt-4o-mini
      api_base: ${fake.url}/v1
      api_key: sk-upstream-secret
    model_info:
      input_cost_per_token: 0.001
      output_cost_per_token: 0.002
`);
    const env = {
      AIGW_DATABASE_URL: database.url,
      AIGW_CONFIG: config,
      AIGW_MASTER_KEY: MASTER_KEY,
      AIGW_REDIS_URL: redisUrl,
      AIGW_LOG: 'warn',
    };
    // One after the other: the second finds the migrations done.
    replicaA = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', env);
    replicaB = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', env);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([replicaA?.kill('SIGTERM'), replicaB?.kill('SIGTERM')]);
    await database?.drop();
    await fake?.stop();
  });

  it('admits exactly rpm_limit calls per minute between the two replicas, then raises RateLimitError', async () => {
    const { key } = await createKey({ rpm_limit: 4 });
    await withRoomInTheMinute(15_000);
    const outcomes: string[] = [];
    const refusals: RateLimitError[] = [];
    for (let i = 0; i < 8; i += 1) {
      const outcome = await chat(i % 2 === 0 ? replicaA : replicaB, key).then(
        () => 'ok',
        (error: unknown) => {
          if (!(error instanceof RateLimitError)) return String(error);
          refusals.push(error);
          return 'RateLimitError';
        },
      );
      outcomes.push(outcome);
    }
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'RateLimitError', 'RateLimitError', 'RateLimitError', 'RateLimitError']);
    expect(refusals[0]).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(Number(refusals[0]?.headers?.get('retry-after'))).toBeGreaterThan(0);
  });

  it("describes the key's own limits in x-ratelimit-* headers", async () => {
    const { key } = await createKey({ rpm_limit: 100, tpm_limit: 100_000 });
    await withRoomInTheMinute(5_000);
    const { response } = await chat(replicaA, key);
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('100');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('99');
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+s$|^\d+ms$/);
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe('100000');
    expect(response.headers.get('x-ratelimit-reset-tokens')).toMatch(/^(\d+m)?\d+s$|^\d+ms$/);
    // Tokens used on A count on B.
    const second = await chat(replicaB, key);
    expect(second.response.headers.get('x-ratelimit-remaining-requests')).toBe('98');
    expect(Number(second.response.headers.get('x-ratelimit-remaining-tokens'))).toBe(100_000 - 12);
  });

  it("reports a key's and a project's spend to the master key on any replica, in the platform envelope", async () => {
    const created = await createKey({ project: 'reports', max_budget: 5, budget_duration: '24h' });
    expect(created).toMatchObject({ spend: 0, max_budget: 5, budget_duration: '24h' });
    const report = await request(replicaB.url).get(`/api/v1/keys/${created.id}/spend`).set(asMaster).expect(200);
    expect(report.body).toEqual({
      key_id: created.id,
      project: 'reports',
      spend: 0,
      budget: { max_budget: 5, budget_duration: '24h', spend: 0, remaining: 5, reset_at: expect.any(String) },
      from: null,
      to: null,
      totals: { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, estimated_requests: 0, estimated_cost_usd: 0, cache_hit_requests: 0 },
      by_alias: [],
      by_deployment: [],
      by_day: [],
    });
    const project = await request(replicaB.url).get('/api/v1/spend?project=reports&from=2026-01-01').set(asMaster).expect(200);
    expect(project.body).toMatchObject({ project: 'reports', from: '2026-01-01', to: null, by_key: [] });

    const envelope = { error: { code: expect.any(String), message: expect.any(String) } };
    expect((await request(replicaB.url).get(`/api/v1/keys/${created.id}/spend`).expect(401)).body).toEqual(envelope);
    expect((await request(replicaB.url).get(`/api/v1/keys/${created.id}/spend`).set('authorization', `Bearer ${created.key}`).expect(401)).body).toEqual(envelope);
    const unknown = await request(replicaB.url).get('/api/v1/keys/00000000-0000-4000-8000-000000000000/spend').set(asMaster).expect(404);
    expect(unknown.body.error.code).toBe('key_not_found');
    const badDay = await request(replicaB.url).get(`/api/v1/keys/${created.id}/spend?from=yesterday`).set(asMaster).expect(400);
    expect(badDay.body.error).toMatchObject({ code: 'invalid_request', details: { fields: { from: expect.any(Array) } } });
    const noProject = await request(replicaB.url).get('/api/v1/spend').set(asMaster).expect(400);
    expect(noProject.body.error.details.fields).toHaveProperty('project');
  });

  it("accepts LiteLLM's budget durations and refuses others, naming the field", async () => {
    for (const duration of ['30s', '30m', '24h', '30d', '1mo']) await createKey({ max_budget: 1, budget_duration: duration });
    const refused = await request(replicaA.url).post('/api/v1/keys').set(asMaster).send({ project: 'alpha', budget_duration: 'monthly' }).expect(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', details: { fields: { budget_duration: expect.any(Array) } } });
  });

  it('refuses on replica B with BadRequestError budget_exceeded once a call on replica A spent the budget', async () => {
    const created = await createKey({ max_budget: 0.000001, budget_duration: '30d' });
    const first = await chat(replicaA, created.key);
    expect(Number(first.response.headers.get('x-arbor-key-spend'))).toBeGreaterThan(0.000001);

    const error = await chat(replicaB, created.key).then(
      () => new Error('the call succeeded'),
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'budget_exceeded', type: 'budget_exceeded' });
    expect((error as BadRequestError).message).toMatch(/Budget has been exceeded! Current cost: [\d.e-]+, Max budget: 0\.000001/);

    // The spend report of the replica that served the call (it flushes before answering).
    const report = await request(replicaA.url).get(`/api/v1/keys/${created.id}/spend`).set(asMaster).expect(200);
    expect(report.body).toMatchObject({
      key_id: created.id,
      totals: { requests: 1, prompt_tokens: 7, completion_tokens: 5 },
      by_alias: [{ alias: 'fast', requests: 1 }],
      budget: { max_budget: 0.000001, budget_duration: '30d', remaining: 0 },
    });
    expect(report.body.spend).toBeCloseTo(0.017, 10);
  });
});
