import { dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { DataSource } from 'typeorm';
import { AI_GATEWAY_ENTITIES, AI_GATEWAY_MIGRATIONS } from '../database';
import { GatewayClock } from '../gateway-clock';
import type { GatewaySettings } from '../gateway-settings';
import { CallRecords } from './call-records';
import { SpendRecorder, type CallRecord } from './spend-recorder';

class FakeClock extends GatewayClock {
  time = Date.UTC(2026, 2, 14, 12, 0, 0);
  override now(): number {
    return this.time;
  }
}

const DAY_MS = 86_400_000;

const record = (startedAt: number, extra: Partial<CallRecord> = {}): CallRecord => ({
  startedAt,
  keyId: null,
  project: 'alpha',
  endUser: null,
  tags: [],
  alias: 'fast',
  deploymentId: 'fast-1',
  provider: 'openai',
  promptTokens: 7,
  completionTokens: 5,
  costUsd: 0.017,
  status: 200,
  latencyMs: 12.5,
  cacheHit: false,
  errorCode: null,
  retries: 0,
  fallbacks: 0,
  ...extra,
});

describe('call records (single calls for /spend/logs)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const clock = new FakeClock();

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

  it('are appended by the flush and pruned past the retention, newer ones kept', async () => {
    const recorder = new SpendRecorder(dataSource, clock);
    const settings = { litellm: { spendLogs: { enabled: true, retentionMs: 7 * DAY_MS } } } as unknown as GatewaySettings;
    const records = new CallRecords(dataSource, clock, settings);
    recorder.recordCallRecord(record(clock.time - 8 * DAY_MS, { endUser: 'old', tags: ['a', 'b'] }));
    recorder.recordCallRecord(record(clock.time - 6 * DAY_MS, { endUser: 'recent' }));
    recorder.recordCallRecord(record(clock.time, { endUser: 'now', status: 502 }));
    await recorder.flush();
    const all = await records.page({ projects: 'all', page: 1, pageSize: 10 });
    expect(all.map((log) => [log.end_user, log.status, log.request_tags])).toEqual([
      ['now', 'failure', []],
      ['recent', 'success', []],
      ['old', 'success', ['a', 'b']],
    ]);
    expect(all[0]).toMatchObject({ spend: 0.017, total_tokens: 12, request_duration_ms: 13, metadata: { status_code: 502 } });

    expect(await records.prune()).toBe(1);
    expect((await records.page({ projects: 'all', page: 1, pageSize: 10 })).map((log) => log.end_user)).toEqual(['now', 'recent']);
    expect((await records.page({ projects: ['beta'], page: 1, pageSize: 10 })).length).toBe(0);
  });
});
