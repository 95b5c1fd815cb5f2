// Budget levels across two gateway replicas: two built gateway PROCESSES sharing one database and
// one Redis, the official OpenAI SDK against them, the upstream from tools/fake-providers.
// Needs `npx nx build ai-gateway` first (dist/apps/ai-gateway/main.js).
import OpenAI, { BadRequestError } from 'openai';
import { BuiltService, createTestDatabase, FakeProvidersProcess, startBuiltService, TestDatabase } from '@arbor/testing';
import { MASTER_KEY, rejectionOf, startFake, writeConfig } from './testing/gateway-test-support';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('budget levels across two replicas sharing Redis', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let replicaA: BuiltService;
  let replicaB: BuiltService;

  const call = async (replica: BuiltService, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> => {
    const response = await fetch(`${replica.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${MASTER_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Json;
  };
  // 0.017 USD a call. Its worst case, held while it is in flight: the request's 70-odd bytes as 24
  // prompt tokens (0.024) and max_tokens 8 (0.016) when it names them, else 4 096 answer tokens.
  const chat = (replica: BuiltService, key: string, user?: string, maxTokens?: number) =>
    new OpenAI({ apiKey: key, baseURL: `${replica.url}/v1`, maxRetries: 0 }).chat.completions.create({
      model: 'fast',
      messages: [{ role: 'user', content: 'hello' }],
      ...(user !== undefined ? { user } : {}),
      ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    });

  beforeAll(async () => {
    const redisUrl = process.env['TEST_REDIS_URL'];
    if (!redisUrl) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    fake = await startFake();
    database = await createTestDatabase();
    const config = writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
`);
    const env = { AIGW_DATABASE_URL: database.url, AIGW_CONFIG: config, AIGW_MASTER_KEY: MASTER_KEY, AIGW_REDIS_URL: redisUrl, AIGW_LOG: 'warn' };
    replicaA = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', env);
    replicaB = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', env);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([replicaA?.kill('SIGTERM'), replicaB?.kill('SIGTERM')]);
    await database?.drop();
    await fake?.stop();
  });

  it("counts an end user's calls on both replicas as one budget: the call after the budget is spent is refused on either", async () => {
    // Set on A: B reads the change within its refresh (two seconds).
    await call(replicaA, 'POST', '/customer/new', { user_id: 'shared-customer', max_budget: 0.05, budget_duration: '1d' });
    const key = (await call(replicaA, 'POST', '/key/generate', { team_id: 'alpha' }))['key'] as string;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const outcomes: string[] = [];
    for (let index = 0; index < 5; index++) {
      const replica = index % 2 === 0 ? replicaA : replicaB;
      outcomes.push(
        await chat(replica, key, 'shared-customer').then(
          () => 'ok',
          (error: unknown) => (error instanceof BadRequestError ? String(error.code) : String(error)),
        ),
      );
    }
    // 0.017, 0.034, 0.051 spent: the third call was admitted at 0.034, the fourth refused.
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'budget_exceeded', 'budget_exceeded']);
    expect((await call(replicaB, 'GET', '/customer/info?end_user_id=shared-customer'))['spend']).toBe(0.051);
  });

  it("keeps a project's budget under a burst on both replicas: calls in flight hold their worst case, so the budget is overspent by less than one call's", async () => {
    await call(replicaB, 'POST', '/team/update', { team_id: 'burst', max_budget: 0.05, budget_duration: '30d' });
    const key = (await call(replicaA, 'POST', '/key/generate', { team_id: 'burst' }))['key'] as string;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const burst = await Promise.all(Array.from({ length: 10 }, (_, index) => rejectionOf(chat(index % 2 === 0 ? replicaA : replicaB, key, undefined, 8))));
    const admitted = burst.filter((outcome) => !(outcome instanceof BadRequestError)).length;
    // Without holds all ten would pass the empty budget (0.17 spent of 0.05); with them, at most
    // what fits next to the calls in flight at their worst case (0.04 each) is let through at once.
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThanOrEqual(4);
    for (const refused of burst.filter((outcome) => outcome instanceof BadRequestError)) expect(refused).toMatchObject({ status: 400, code: 'budget_exceeded' });
    // Then one call at a time until the project's budget refuses, on either replica.
    let spent = admitted;
    for (let index = 0; index < 10; index++) {
      const outcome = await rejectionOf(chat(index % 2 === 0 ? replicaB : replicaA, key, undefined, 8));
      if (outcome instanceof BadRequestError) break;
      spent += 1;
    }
    // Every call admitted counts, on whichever replica it ran: the totals match to the picodollar…
    const team = await call(replicaA, 'GET', '/team/info?team_id=burst');
    expect(team['team_info']['spend']).toBe(Number((spent * 0.017).toFixed(3)));
    // …and they exceed the budget by less than one call's worst case (0.05 + 0.04).
    expect(spent * 0.017).toBeLessThan(0.09);
    // Each replica writes its own calls before it answers: asked on A, then on B, the list has both.
    await call(replicaA, 'GET', `/spend/logs?team_id=burst&page_size=100`);
    const logs = await call(replicaB, 'GET', `/spend/logs?team_id=burst&page_size=100`);
    expect(logs.filter((log: Json) => log['status'] === 'success')).toHaveLength(spent);
    for (const replica of [replicaA, replicaB]) expect(await rejectionOf(chat(replica, key))).toMatchObject({ status: 400, code: 'budget_exceeded' });
  });

  it("counts a project's rpm_limit (LiteLLM's team) over both replicas: the calls past it are refused on either", async () => {
    await call(replicaA, 'POST', '/team/update', { team_id: 'paced', rpm_limit: 4 });
    const key = (await call(replicaB, 'POST', '/key/generate', { team_id: 'paced' }))['key'] as string;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const statuses: number[] = [];
    for (let index = 0; index < 6; index++) {
      statuses.push(
        await chat(index % 2 === 0 ? replicaA : replicaB, key).then(
          () => 200,
          (error: { status?: number }) => error.status ?? 0,
        ),
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
