import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { DatabaseModule, dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { DataSource } from 'typeorm';
import { AI_GATEWAY_ENTITIES, AI_GATEWAY_MIGRATIONS } from '../database';
import { GatewayClock } from '../gateway-clock';
import { hashApiKey } from '@arbor/api-keys';
import { VirtualKey } from '../keys/virtual-key.entity';
import { type CallRecord, SpendEntry, SpendRecorder } from './spend-recorder';
import { SpendReports } from './spend-report';

class FakeClock extends GatewayClock {
  time = Date.UTC(2026, 2, 14, 23, 59, 0);
  override now(): number {
    return this.time;
  }
}

const call = (keyId: string | null, extra: Partial<SpendEntry> = {}): SpendEntry => ({
  keyId,
  project: keyId === null ? null : 'alpha',
  alias: 'fast',
  deploymentId: 'fast-1',
  provider: 'openai',
  promptTokens: 10,
  completionTokens: 5,
  costUsd: 0.001,
  ...extra,
});

describe('SpendRecorder', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let clock: FakeClock;
  let recorder: SpendRecorder;

  const newKey = async (fields: Partial<VirtualKey> = {}): Promise<VirtualKey> => {
    const key = `sk-arbor-${randomBytes(8).toString('hex')}`;
    return dataSource.getRepository(VirtualKey).save({ keyHash: hashApiKey(key), keyHint: 'sk-arbor-…test', project: 'alpha', ...fields });
  };
  const keyRow = (id: string) => dataSource.getRepository(VirtualKey).findOneByOrFail({ id });
  const dailyRows = (keyId: string): Promise<Record<string, unknown>[]> =>
    dataSource.query(
      `select day::text as day, alias, deployment_id, provider, requests::int as requests, prompt_tokens::int as prompt_tokens,
              completion_tokens::int as completion_tokens, cost_usd from spend_daily where key_id = $1 order by day, alias`,
      [keyId],
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(
      dataSourceOptions({ url: database.url, entities: AI_GATEWAY_ENTITIES, migrations: AI_GATEWAY_MIGRATIONS, applicationName: 'test' }),
    ).initialize();
    await runMigrationsLocked(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  beforeEach(() => {
    clock = new FakeClock();
    recorder = new SpendRecorder(dataSource, clock);
  });

  it('adds calls up per UTC day, key, alias and deployment', async () => {
    const key = await newKey();
    recorder.record(call(key.id));
    recorder.record(call(key.id, { promptTokens: 20, completionTokens: 1, costUsd: 0.002 }));
    recorder.record(call(key.id, { alias: 'smart', deploymentId: 'smart-1' }));
    clock.time += 60_000; // the next UTC day
    recorder.record(call(key.id));
    recorder.record(call(null));
    await recorder.flush();
    recorder.record(call(key.id)); // a later flush adds to the same row
    await recorder.flush();

    expect(await dailyRows(key.id)).toEqual([
      { day: '2026-03-14', alias: 'fast', deployment_id: 'fast-1', provider: 'openai', requests: 2, prompt_tokens: 30, completion_tokens: 6, cost_usd: '0.003' },
      { day: '2026-03-14', alias: 'smart', deployment_id: 'smart-1', provider: 'openai', requests: 1, prompt_tokens: 10, completion_tokens: 5, cost_usd: '0.001' },
      { day: '2026-03-15', alias: 'fast', deployment_id: 'fast-1', provider: 'openai', requests: 2, prompt_tokens: 20, completion_tokens: 10, cost_usd: '0.002' },
    ]);
    const master = await dataSource.query(`select requests::int as requests from spend_daily where key_id is null and day = '2026-03-15'`);
    expect(master).toEqual([{ requests: 1 }]);
  });

  it("counts a project's calls and errors per UTC hour (calls_hourly), also when the clock goes back", async () => {
    const project = `hourly-${randomBytes(4).toString('hex')}`;
    recorder.recordCall(project, null, false);
    recorder.recordCall(project, null, true);
    clock.time += 60_000; // 00:00 the next day: the next hour
    recorder.recordCall(project, null, false);
    clock.time -= 120_000; // a clock set back lands in the hour it names
    recorder.recordCall(project, null, false);
    await recorder.flush();
    const rows = await dataSource.query(
      `select to_char(hour at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as hour, calls::int as calls, errors::int as errors from calls_hourly where project = $1 order by hour`,
      [project],
    );
    expect(rows).toEqual([
      { hour: '2026-03-14 23:00', calls: 3, errors: 1 },
      { hour: '2026-03-15 00:00', calls: 1, errors: 0 },
    ]);
  });

  it('keeps apart, in the same rows, the requests and cost whose usage the gateway estimated', async () => {
    const key = await newKey({ project: 'estimates' });
    recorder.record(call(key.id, { project: 'estimates' }));
    recorder.record(call(key.id, { project: 'estimates', costUsd: 0.004, estimated: true }));
    await recorder.flush();
    recorder.record(call(key.id, { project: 'estimates', costUsd: 0.002, estimated: true }));
    const report = await new SpendReports(dataSource, recorder, clock).forKey(key.id);
    expect(report.totals).toMatchObject({ requests: 3, estimated_requests: 2 });
    expect(report.totals.cost_usd).toBeCloseTo(0.007, 10);
    expect(report.totals.estimated_cost_usd).toBeCloseTo(0.006, 10);
    expect(report.by_alias).toMatchObject([{ alias: 'fast', requests: 3, estimated_requests: 2 }]);
  });

  it("keeps the key's lifetime spend and the spend of its current budget period", async () => {
    const key = await newKey({ budgetDuration: '1h' });
    const period = clock.time + 3_600_000;
    recorder.recordKeySpend(key.id, 0.5, period);
    recorder.recordKeySpend(key.id, 0.25, period);
    await recorder.flush();
    expect(await keyRow(key.id)).toMatchObject({ spend: 0.75, budgetSpend: 0.75, budgetResetAt: new Date(period) });

    // The next period starts from its own spend; a late flush of the earlier one only adds to the lifetime.
    recorder.recordKeySpend(key.id, 0.125, period + 3_600_000);
    await recorder.flush();
    recorder.recordKeySpend(key.id, 1, period);
    await recorder.flush();
    expect(await keyRow(key.id)).toMatchObject({ spend: 1.875, budgetSpend: 0.125, budgetResetAt: new Date(period + 3_600_000) });
  });

  it('keeps what a failed flush held and writes it, once, with the next', async () => {
    const key = await newKey();
    const callRecord = (endUser: string): CallRecord => ({
      startedAt: Date.now(),
      keyId: key.id,
      project: 'alpha',
      endUser,
      tags: endUser === 'first' ? ['a', 'b'] : [],
      alias: 'fast',
      deploymentId: 'fast-0',
      provider: 'openai',
      promptTokens: 7,
      completionTokens: 5,
      costUsd: 0.001,
      status: 200,
      latencyMs: 12.5,
      cacheHit: false,
      errorCode: null,
      retries: 0,
      fallbacks: 0,
    });
    recorder.record(call(key.id));
    recorder.recordKeySpend(key.id, 0.001, null);
    recorder.recordCallRecord(callRecord('first'));
    await dataSource.query('alter table spend_daily rename to spend_daily_away');
    try {
      await expect(recorder.flush()).rejects.toThrow();
      recorder.record(call(key.id));
      recorder.recordCallRecord(callRecord('second'));
    } finally {
      await dataSource.query('alter table spend_daily_away rename to spend_daily');
    }
    await recorder.flush();
    await recorder.flush();
    expect(await dailyRows(key.id)).toMatchObject([{ requests: 2, cost_usd: '0.002' }]);
    expect(await keyRow(key.id)).toMatchObject({ spend: 0.001, budgetResetAt: null });
    // The single calls too: both, once each, with what they recorded.
    expect(await dataSource.query('select end_user, tags, cost_usd::text as cost, latency_ms from call_records where key_id = $1 order by started_at, end_user', [key.id])).toEqual(
      [
        { end_user: 'first', tags: ['a', 'b'], cost: '0.001', latency_ms: 12.5 },
        { end_user: 'second', tags: [], cost: '0.001', latency_ms: 12.5 },
      ],
    );
  });

  it('writes everything recorded when the application shuts down', async () => {
    @Module({
      imports: [
        DatabaseModule.forRoot({ url: database.url, variable: 'AIGW_DATABASE_URL', entities: AI_GATEWAY_ENTITIES, migrations: AI_GATEWAY_MIGRATIONS, applicationName: 'test' }),
      ],
      providers: [GatewayClock, SpendRecorder],
    })
    class RecorderModule {}
    const app = await NestFactory.createApplicationContext(RecorderModule, { logger: false });
    const key = await newKey();
    const running = app.get(SpendRecorder);
    for (let i = 0; i < 250; i += 1) {
      running.record(call(key.id, { alias: `alias-${i % 5}` }));
      running.recordKeySpend(key.id, 0.001, null);
    }
    await app.close();
    const rows = await dailyRows(key.id);
    expect(rows).toHaveLength(5);
    expect(rows.reduce((sum, row) => sum + Number(row['requests']), 0)).toBe(250);
    expect((await keyRow(key.id)).spend).toBe(0.25);
  });

  it('adds spend exactly: calls whose costs add up to float noise are stored and reported as the exact decimal', async () => {
    const key = await newKey({ project: 'exact' });
    const reports = new SpendReports(dataSource, recorder, clock);
    // 26 calls at 0.0000497404 USD add up, as floats, to 0.0012932504000000003.
    for (let n = 0; n < 26; n++) {
      recorder.record(call(key.id, { project: 'exact', costUsd: 0.0000497404 }));
      recorder.recordKeySpend(key.id, 0.0000497404, null);
      if (n % 10 === 0) await recorder.flush();
    }
    await recorder.flush();
    // As floats 0.00015000000000000001.
    recorder.record(call(key.id, { project: 'exact', alias: 'smart', deploymentId: 'smart-1', costUsd: 0.00003 }));
    recorder.record(call(key.id, { project: 'exact', alias: 'smart', deploymentId: 'smart-1', costUsd: 0.00012 }));
    await recorder.flush();

    expect(await dataSource.query(`select alias, cost_usd from spend_daily where key_id = $1 order by alias`, [key.id])).toEqual([
      { alias: 'fast', cost_usd: '0.0012932504' },
      { alias: 'smart', cost_usd: '0.00015' },
    ]);
    expect((await keyRow(key.id)).spend).toBe(0.0012932504);
    const report = await reports.forKey(key.id);
    expect(JSON.stringify(report.totals)).toContain('"cost_usd":0.0014432504,');
    expect(report.by_alias.map((row) => row.cost_usd)).toEqual([0.0012932504, 0.00015]);
  });

  it("reports a key's and a project's spend by alias, deployment and day, within a date range", async () => {
    const key = await newKey({ project: 'reports', maxBudget: 2, budgetDuration: '1d', keyAlias: `reports ${randomBytes(3).toString('hex')}` });
    const other = await newKey({ project: 'reports' });
    const reports = new SpendReports(dataSource, recorder, clock);
    recorder.record(call(key.id, { project: 'reports' }));
    recorder.record(call(key.id, { project: 'reports', alias: 'smart', deploymentId: 'smart-1', provider: 'anthropic', costUsd: 0.01 }));
    recorder.record(call(other.id, { project: 'reports' }));
    clock.time += 60_000;
    recorder.record(call(key.id, { project: 'reports' }));
    // Recorded, not flushed yet: the report includes it.
    recorder.recordKeySpend(key.id, 0.013, Date.UTC(2026, 2, 15, 0, 0) + 86_400_000);

    const report = await reports.forKey(key.id);
    expect(report).toMatchObject({
      key_id: key.id,
      project: 'reports',
      spend: 0.013,
      totals: { requests: 3, prompt_tokens: 30, completion_tokens: 15 },
      by_alias: [
        { alias: 'fast', requests: 2 },
        { alias: 'smart', requests: 1, cost_usd: 0.01 },
      ],
      by_deployment: expect.arrayContaining([
        {
          deployment_id: 'smart-1',
          provider: 'anthropic',
          requests: 1,
          prompt_tokens: 10,
          completion_tokens: 5,
          cost_usd: 0.01,
          estimated_requests: 0,
          estimated_cost_usd: 0,
          cache_hit_requests: 0,
        },
      ]),
      by_day: [
        { day: '2026-03-14', requests: 2 },
        { day: '2026-03-15', requests: 1 },
      ],
    });
    expect(report.totals.cost_usd).toBe(0.012);
    expect((await reports.forKey(key.id, '2026-03-15', '2026-03-15')).totals.requests).toBe(1);

    const project = await reports.forProject('reports', undefined, '2026-03-14');
    expect(project.totals.requests).toBe(3);
    expect(project.by_key).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key_id: key.id, key_hint: 'sk-arbor-…test', key_alias: key.keyAlias, requests: 2 }),
        expect.objectContaining({ key_id: other.id, key_alias: null, requests: 1 }),
      ]),
    );
  });
});
