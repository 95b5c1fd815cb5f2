import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ProviderError } from '@arbor/provider-adapters';
import { freePort } from '@arbor/testing';
import { GatewayClock } from '../gateway-clock';
import type { VerifiedKey } from '../keys/key-verifier';
import type { SpendRecorder } from '../spend/spend-recorder';
import { GatewayRedis } from './gateway-redis';
import { KeyAdmission, KeyLimiter } from './key-limiter';
import { openAiDuration } from './rate-limit-headers';
import { MetricsRegistry } from '@arbor/observability';
import { BudgetAlerts } from '../budgets/budget-alerts';

class FakeClock extends GatewayClock {
  // 10 s into a minute, so that minute boundaries are where the tests put them.
  time = Date.UTC(2026, 0, 1, 12, 0, 10);
  override now(): number {
    return this.time;
  }
}

const recorder = { recordKeySpend: () => undefined } as unknown as SpendRecorder;

function keyWith(limits: Partial<VerifiedKey>): VerifiedKey {
  return {
    id: randomUUID(),
    keyHash: 'hash',
    project: 'alpha',
    projectId: null,
    projectDeleted: false,
    aliases: [],
    guardrails: [],
    expiresAt: null,
    blocked: false,
    maxBudget: null,
    budgetDuration: null,
    rpmLimit: null,
    tpmLimit: null,
    maxParallelRequests: null,
    softBudget: null,
    userId: null,
    modelRateLimits: null,
    modelBudgets: null,
    spend: 0,
    budgetSpend: 0,
    budgetResetAt: null,
    createdAt: Date.UTC(2026, 0, 1),
    ...limits,
  };
}

async function refusal(admitting: Promise<KeyAdmission>): Promise<ProviderError> {
  const error = await admitting.then(
    () => new Error('admitted'),
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ProviderError)) throw error;
  return error;
}

describe('KeyLimiter in process', () => {
  let clock: FakeClock;
  let limiter: KeyLimiter;

  beforeEach(() => {
    clock = new FakeClock();
    limiter = new KeyLimiter(clock, new GatewayRedis(), recorder, new BudgetAlerts(new MetricsRegistry(), new GatewayRedis()));
  });

  it('admits rpm_limit requests in a minute, refuses the next with 429 and Retry-After, and admits again next minute', async () => {
    const key = keyWith({ rpmLimit: 3 });
    for (let i = 0; i < 3; i += 1) (await limiter.admit(key)).settle({ totalTokens: 0, cost: 0 });
    const refused = await refusal(limiter.admit(key));
    expect(refused).toMatchObject({ status: 429, type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' });
    expect(refused.headers).toMatchObject({ 'retry-after': '50', 'x-ratelimit-remaining-requests': '0' });
    // A refused request does not use up the next minute either.
    clock.time += 50_000;
    for (let i = 0; i < 3; i += 1) await limiter.admit(key);
    await expect(limiter.admit(key)).rejects.toMatchObject({ status: 429 });
  });

  it('refuses a request beyond max_parallel_requests until one in flight settles, also after a failure', async () => {
    const key = keyWith({ maxParallelRequests: 2 });
    const first = await limiter.admit(key);
    await limiter.admit(key);
    expect(await refusal(limiter.admit(key))).toMatchObject({ status: 429, code: 'max_parallel_requests_exceeded' });
    first.settle({ totalTokens: 0, cost: 0 });
    first.settle({ totalTokens: 0, cost: 0 }); // settling twice frees one slot, not two
    await limiter.admit(key);
    await expect(limiter.admit(key)).rejects.toMatchObject({ code: 'max_parallel_requests_exceeded' });
  });

  it('refuses once tpm_limit tokens are used in the minute, with Retry-After to the next minute', async () => {
    const key = keyWith({ tpmLimit: 100 });
    (await limiter.admit(key)).settle({ totalTokens: 60, cost: 0 });
    (await limiter.admit(key)).settle({ totalTokens: 40, cost: 0 });
    const refused = await refusal(limiter.admit(key));
    expect(refused).toMatchObject({ status: 429, type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' });
    expect(refused.message).toContain('tokens per minute');
    expect(refused.headers).toMatchObject({ 'retry-after': '50', 'x-ratelimit-remaining-tokens': '0' });
    clock.time += 50_000;
    await limiter.admit(key);
  });

  it("refuses with 400 budget_exceeded once the period's spend reaches max_budget, and admits again when the period rolls over", async () => {
    const key = keyWith({ maxBudget: 1, budgetDuration: '30m' });
    expect((await limiter.admit(key)).settle({ totalTokens: 10, cost: 0.6 })).toEqual({ keySpend: 0.6 });
    expect((await limiter.admit(key)).settle({ totalTokens: 10, cost: 0.5 })).toEqual({ keySpend: 1.1 });
    const refused = await refusal(limiter.admit(key));
    expect(refused).toMatchObject({ status: 400, type: 'budget_exceeded', code: 'budget_exceeded' });
    expect(refused.message).toBe("Budget has been exceeded! Current cost: 1.1, Max budget: 1 (the key's max_budget)");
    clock.time += 30 * 60_000;
    // A new period: the budget is available again; the lifetime spend goes on.
    expect((await limiter.admit(key)).settle({ totalTokens: 10, cost: 0.25 })).toEqual({ keySpend: 1.35 });
  });

  it("holds each call's worst-case cost against max_budget while it is in flight: calls admitted together cannot spend past the budget", async () => {
    const key = keyWith({ maxBudget: 1 });
    const first = await limiter.admit(key, 0.6);
    // 0.6 held of 1: a second call holding 0.6 more is still admitted (the budget is not reached)…
    const second = await limiter.admit(key, 0.6);
    // …but with 1.2 held, a third is refused although nothing is spent yet.
    const refused = await refusal(limiter.admit(key, 0.6));
    expect(refused).toMatchObject({ status: 400, code: 'budget_exceeded' });
    expect(refused.message).toBe(
      "Budget has been exceeded! Current cost: 0, Max budget: 1 (the key's max_budget: calls in flight hold 1.2 of it at their worst-case cost until they finish)",
    );
    // Settling frees what a call held and counts what it cost.
    first.settle({ totalTokens: 10, cost: 0.1 });
    const third = await limiter.admit(key, 0.6);
    second.settle({ totalTokens: 10, cost: 0.1 });
    third.settle({ totalTokens: 10, cost: 0.1 });
    // Nothing held any more: the budget's own spend decides.
    expect((await limiter.admit(key, 5)).settle({ totalTokens: 10, cost: 0.1 })).toEqual({ keySpend: 0.4 });
  });

  it('a refused call gives back what it held, and a key without max_budget holds nothing', async () => {
    const key = keyWith({ maxBudget: 1, rpmLimit: 1 });
    await limiter.admit(key, 0.9);
    await expect(limiter.admit(key, 0.9)).rejects.toMatchObject({ status: 429 });
    clock.time += 60_000;
    // Only the first call's 0.9 is held: a call is admitted (0.9 < 1).
    await limiter.admit(key, 0.9);
    const unlimited = keyWith({});
    for (let i = 0; i < 5; i += 1) await limiter.admit(unlimited, 100);
  });

  it('starts from the spend persisted for the key: the current period counts, an earlier one does not', async () => {
    const periodEnd = clock.time + 60_000;
    await expect(limiter.admit(keyWith({ maxBudget: 1, budgetDuration: '1h', budgetSpend: 1, budgetResetAt: periodEnd }))).rejects.toMatchObject({
      code: 'budget_exceeded',
    });
    const earlier = keyWith({ maxBudget: 1, budgetDuration: '1h', spend: 5, budgetSpend: 1, budgetResetAt: clock.time - 60_000 });
    expect((await limiter.admit(earlier)).settle({ totalTokens: 1, cost: 0.5 })).toEqual({ keySpend: 5.5 });
    // Without budget_duration, max_budget is a lifetime budget.
    await expect(limiter.admit(keyWith({ maxBudget: 5, spend: 5 }))).rejects.toMatchObject({ status: 400, code: 'budget_exceeded' });
  });

  it("counts model_rpm_limit and model_tpm_limit per alias: the alias over its limit is refused, the key's other aliases are not", async () => {
    const key = keyWith({
      modelRateLimits: new Map([
        ['gpt-4o', { rpm: 2, tpm: null }],
        ['mini', { rpm: null, tpm: 100 }],
      ]),
    });
    await limiter.admit(key, 0, 'gpt-4o');
    await limiter.admit(key, 0, 'gpt-4o');
    const refused = await refusal(limiter.admit(key, 0, 'gpt-4o'));
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(refused.message).toBe('Rate limit reached for this key on "gpt-4o": 2 requests per minute (model_rpm_limit). Try again in 50s.');
    expect(refused.headers['retry-after']).toBe('50');
    // Other aliases, limited or not, still pass.
    (await limiter.admit(key, 0, 'mini')).settle({ totalTokens: 100, cost: 0 });
    await limiter.admit(key, 0, 'other');
    expect(await refusal(limiter.admit(key, 0, 'mini'))).toMatchObject({ status: 429, message: expect.stringContaining('100 tokens per minute (model_tpm_limit)') });
    clock.time += 60_000;
    await limiter.admit(key, 0, 'gpt-4o');
    await limiter.admit(key, 0, 'mini');
  });

  it("describes the key's own limits in OpenAI's x-ratelimit-* headers, only those it has", async () => {
    const both = await limiter.admit(keyWith({ rpmLimit: 10, tpmLimit: 1000 }));
    expect(both.rateLimitHeaders()).toEqual({
      'x-ratelimit-limit-requests': '10',
      'x-ratelimit-remaining-requests': '9',
      'x-ratelimit-reset-requests': '50s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '1000',
      'x-ratelimit-reset-tokens': '50s',
    });
    expect(Object.keys((await limiter.admit(keyWith({ rpmLimit: 10 }))).rateLimitHeaders())).toEqual([
      'x-ratelimit-limit-requests',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-reset-requests',
    ]);
    expect((await limiter.admit(keyWith({}))).rateLimitHeaders()).toEqual({});
    expect([openAiDuration(850), openAiDuration(1000), openAiDuration(360_000), openAiDuration(3_723_000)]).toEqual(['850ms', '1s', '6m0s', '1h2m3s']);
  });
});

describe('KeyLimiter on two replicas sharing Redis', () => {
  let clock: FakeClock;
  let redisA: GatewayRedis;
  let redisB: GatewayRedis;
  let replicaA: KeyLimiter;
  let replicaB: KeyLimiter;
  // Commands on one connection run in order: a round trip after a settle means Redis has it.
  const settledIn = async (redis: GatewayRedis) => {
    await redis.client?.ping();
  };

  beforeAll(async () => {
    const url = process.env['TEST_REDIS_URL'];
    if (!url) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    redisA = new GatewayRedis(url);
    redisB = new GatewayRedis(url);
    await Promise.all([redisA.onApplicationBootstrap(), redisB.onApplicationBootstrap()]);
  });

  afterAll(async () => {
    await Promise.all([redisA.onApplicationShutdown(), redisB.onApplicationShutdown()]);
  });

  beforeEach(() => {
    clock = new FakeClock();
    replicaA = new KeyLimiter(clock, redisA, recorder, new BudgetAlerts(new MetricsRegistry(), redisA));
    replicaB = new KeyLimiter(clock, redisB, recorder, new BudgetAlerts(new MetricsRegistry(), redisB));
  });

  it('admits exactly rpm_limit requests between them, alternating and all at once', async () => {
    const key = keyWith({ rpmLimit: 4 });
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const replica = i % 2 === 0 ? replicaA : replicaB;
      outcomes.push(
        await replica.admit(key).then(
          () => 'admitted',
          (error: ProviderError) => String(error.status),
        ),
      );
    }
    expect(outcomes).toEqual(['admitted', 'admitted', 'admitted', 'admitted', '429', '429', '429', '429']);

    const burst = keyWith({ rpmLimit: 5 });
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? replicaA : replicaB).admit(burst)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
  });

  it("shares parallel slots, and a crashed replica's slots lapse", async () => {
    const key = keyWith({ maxParallelRequests: 2 });
    const onA = await replicaA.admit(key);
    await replicaB.admit(key);
    expect(await refusal(replicaA.admit(key))).toMatchObject({ status: 429, code: 'max_parallel_requests_exceeded' });
    onA.settle({ totalTokens: 0, cost: 0 });
    await settledIn(redisA);
    const again = await replicaB.admit(key);
    expect(again.rateLimitHeaders()).toEqual({});
    // Replica B "crashes" holding both slots: they lapse after the slot hold time.
    await expect(replicaA.admit(key)).rejects.toMatchObject({ code: 'max_parallel_requests_exceeded' });
    clock.time += 10 * 60_000 + 1;
    await replicaA.admit(key);
  });

  it("holds a call's worst-case cost on both replicas, and a crashed replica's holds lapse", async () => {
    const key = keyWith({ maxBudget: 1 });
    const onA = await replicaA.admit(key, 0.7);
    await replicaB.admit(key, 0.7);
    expect(await refusal(replicaA.admit(key, 0.7))).toMatchObject({ status: 400, code: 'budget_exceeded' });
    onA.settle({ totalTokens: 1, cost: 0.1 });
    await settledIn(redisA);
    // A's hold is gone, B's is not: 0.1 spent + 0.7 held < 1.
    await replicaB.admit(key, 0.7);
    await expect(replicaA.admit(key, 0.1)).rejects.toMatchObject({ code: 'budget_exceeded' });
    // B "crashes" holding 1.4: its holds lapse after the slot hold time.
    clock.time += 10 * 60_000 + 1;
    await replicaA.admit(key, 0.1);
  });

  it("counts a key's rate on an alias across both replicas", async () => {
    const key = keyWith({ modelRateLimits: new Map([['gpt-4o', { rpm: 3, tpm: null }]]) });
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? replicaA : replicaB).admit(key, 0, 'gpt-4o')));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    await replicaA.admit(key, 0, 'another');
  });

  it('counts tokens used on one replica against tpm_limit on the other', async () => {
    const key = keyWith({ tpmLimit: 100, rpmLimit: 50 });
    (await replicaA.admit(key)).settle({ totalTokens: 100, cost: 0 });
    await settledIn(redisA);
    const refused = await refusal(replicaB.admit(key));
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('0');
    clock.time += 60_000;
    expect((await replicaB.admit(key)).rateLimitHeaders()['x-ratelimit-remaining-tokens']).toBe('100');
  });

  it('refuses on one replica the budget spent on the other, until the budget period rolls over', async () => {
    const key = keyWith({ maxBudget: 0.01, budgetDuration: '30s', spend: 2 });
    expect((await replicaA.admit(key)).settle({ totalTokens: 10, cost: 0.02 })).toEqual({ keySpend: 2.02 });
    await settledIn(redisA);
    const refused = await refusal(replicaB.admit(key));
    expect(refused).toMatchObject({ status: 400, type: 'budget_exceeded', code: 'budget_exceeded' });
    expect(refused.message).toBe("Budget has been exceeded! Current cost: 0.02, Max budget: 0.01 (the key's max_budget)");
    clock.time += 30_000;
    // The lifetime spend is shared too.
    expect((await replicaB.admit(key)).settle({ totalTokens: 1, cost: 0.001 })).toEqual({ keySpend: 2.021 });
  });

  it('falls back to in-process counters when Redis is unreachable, warning once', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const unreachable = new GatewayRedis(`redis://127.0.0.1:${await freePort()}`);
    try {
      await unreachable.onApplicationBootstrap();
      const limiter = new KeyLimiter(clock, unreachable, recorder, new BudgetAlerts(new MetricsRegistry(), unreachable));
      const key = keyWith({ rpmLimit: 2 });
      await limiter.admit(key);
      await limiter.admit(key);
      await expect(limiter.admit(key)).rejects.toMatchObject({ status: 429 });
      const warnings = warn.mock.calls.filter(([message]) => String(message).includes('Redis is unreachable'));
      expect(warnings).toHaveLength(1);
    } finally {
      warn.mockRestore();
      await unreachable.onApplicationShutdown();
    }
  });
});
