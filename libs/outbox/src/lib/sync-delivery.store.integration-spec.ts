import { dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { DataSource } from 'typeorm';
import { OUTBOX_ENTITIES, OUTBOX_MIGRATIONS } from '../index';
import { OutboxEvent } from './outbox-event.entity';
import { OutboxWriter } from './outbox.writer';
import { SyncDelivery } from './sync-delivery.entity';
import { SyncDeliveryStore } from './sync-delivery.store';

const PRODUCTS = ['ai-gateway', 'mcp-gateway'];
const T0 = new Date('2030-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('the sync delivery store', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let store: SyncDeliveryStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(dataSourceOptions({ url: database.url, entities: OUTBOX_ENTITIES, migrations: OUTBOX_MIGRATIONS, applicationName: 'test' })).initialize();
    await runMigrationsLocked(dataSource);
    store = new SyncDeliveryStore(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  beforeEach(async () => {
    await dataSource.query('truncate sync_deliveries, outbox_events restart identity');
  });

  const change = (...slugs: string[]) => dataSource.transaction((manager) => OutboxWriter.projectsChanged(manager, slugs));
  const deliveries = () => dataSource.getRepository(SyncDelivery).find({ order: { id: 'ASC' } });

  it('fans an event out to every product once, even when two dispatchers fan out at the same time', async () => {
    await change('alpha');
    await change('beta', 'alpha');
    const counts = await Promise.all([store.fanOut(PRODUCTS, T0, 100), store.fanOut(PRODUCTS, T0, 100)]);
    expect(counts.reduce((a, b) => a + b)).toBe(2);
    expect(await store.fanOut(PRODUCTS, T0, 100)).toBe(0);

    const rows = await deliveries();
    expect(rows.map((row) => [row.product, row.slugs, row.state, row.attempts])).toEqual(
      expect.arrayContaining([
        ['ai-gateway', ['alpha'], 'pending', 0],
        ['mcp-gateway', ['alpha'], 'pending', 0],
        ['ai-gateway', ['alpha', 'beta'], 'pending', 0],
        ['mcp-gateway', ['alpha', 'beta'], 'pending', 0],
      ]),
    );
    expect(rows).toHaveLength(4);
    const events = await dataSource.getRepository(OutboxEvent).find();
    for (const row of rows) {
      const event = events.find((e) => e.id === row.eventId)!;
      expect(row.traceparent).toBe(event.traceparent);
      expect(row.createdAt).toEqual(event.createdAt);
      expect(row.nextAttemptAt).toEqual(T0);
    }
    expect(events.every((event) => event.dispatchedAt?.getTime() === T0.getTime())).toBe(true);
  });

  it('leaves an event another dispatcher is fanning out to that one, without waiting for it', async () => {
    await change('a');
    await change('b');
    const other = dataSource.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    try {
      await other.query(`select id from outbox_events where payload -> 'slugs' = '["a"]' for update`);
      const fannedOut = await Promise.race([store.fanOut(PRODUCTS, T0, 100), new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 2000))]);
      expect(fannedOut).toBe(1);
    } finally {
      await other.rollbackTransaction();
      await other.release();
    }
    expect((await deliveries()).map((row) => row.slugs[0])).toEqual(['b', 'b']);
  });

  it('does not skip an event whose transaction commits after a later one (ids commit out of order)', async () => {
    const slow = dataSource.createQueryRunner();
    await slow.connect();
    await slow.startTransaction();
    await OutboxWriter.projectsChanged(slow.manager, ['slow']);
    await change('fast');
    expect(await store.fanOut(PRODUCTS, T0, 100)).toBe(1);
    await slow.commitTransaction();
    await slow.release();

    expect(await store.fanOut(PRODUCTS, T0, 100)).toBe(1);
    expect((await deliveries()).map((row) => row.slugs[0]).sort()).toEqual(['fast', 'fast', 'slow', 'slow']);
  });

  it('leases claimed rows to one claimant, and hands them to another only when the lease ends', async () => {
    for (const slug of ['a', 'b', 'c']) await change(slug);
    await store.fanOut(['ai-gateway'], T0, 100);

    const [first, second] = await Promise.all([
      store.claim({ product: 'ai-gateway', claimedBy: 'one', now: T0, until: at(30), limit: 2 }),
      store.claim({ product: 'ai-gateway', claimedBy: 'two', now: T0, until: at(30), limit: 2 }),
    ]);
    const claimed = [...first, ...second].map((row) => row.slugs[0]);
    expect(claimed.sort()).toEqual(['a', 'b', 'c']);
    expect(await store.claim({ product: 'ai-gateway', claimedBy: 'three', now: at(29), until: at(59), limit: 10 })).toEqual([]);
    expect(await store.nextDue('ai-gateway')).toEqual(at(30));

    // The claimants died: at the lease's end everything is due again, attempts unchanged.
    const takenOver = await store.claim({ product: 'ai-gateway', claimedBy: 'three', now: at(30), until: at(60), limit: 10 });
    expect(takenOver.map((row) => [row.slugs[0], row.attempts])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
    // A late answer to the old claim changes nothing.
    expect(await store.markDelivered({ ids: first.map((row) => row.id), claimedBy: 'one', now: at(31), status: 204 })).toBe(0);
  });

  it('skips rows another claim is taking right now instead of waiting for them or taking them too', async () => {
    for (const slug of ['a', 'b', 'c']) await change(slug);
    await store.fanOut(['ai-gateway'], T0, 100);
    const other = dataSource.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    try {
      // Another dispatcher's claim statement, caught between its lock and its commit.
      await other.query(`select id from sync_deliveries where slugs = '["a"]' for update`);
      const claimed = await Promise.race([
        store.claim({ product: 'ai-gateway', claimedBy: 'one', now: T0, until: at(30), limit: 10 }),
        new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 2000)),
      ]);
      expect(claimed === 'blocked' ? claimed : claimed.map((row) => row.slugs[0])).toEqual(['b', 'c']);
    } finally {
      await other.rollbackTransaction();
      await other.release();
    }
  });

  it("records a failure with each row's retry time, and a success with its time", async () => {
    await change('a');
    await change('b');
    await store.fanOut(['ai-gateway'], T0, 100);
    const claimed = await store.claim({ product: 'ai-gateway', claimedBy: 'one', now: T0, until: at(30), limit: 10 });
    expect(
      await store.markFailed({
        claimedBy: 'one',
        now: at(1),
        status: 503,
        error: 'HTTP 503',
        retries: [
          { id: claimed[0].id, nextAttemptAt: at(6) },
          { id: claimed[1].id, nextAttemptAt: at(7) },
        ],
      }),
    ).toBe(2);
    let rows = await deliveries();
    expect(rows.map((row) => [row.attempts, row.lastStatus, row.lastError, row.nextAttemptAt, row.claimedBy, row.lastAttemptAt])).toEqual([
      [1, 503, 'HTTP 503', at(6), null, at(1)],
      [1, 503, 'HTTP 503', at(7), null, at(1)],
    ]);
    expect(await store.claim({ product: 'ai-gateway', claimedBy: 'two', now: at(5.9), until: at(35), limit: 10 })).toEqual([]);
    const retried = await store.claim({ product: 'ai-gateway', claimedBy: 'two', now: at(6), until: at(36), limit: 10 });
    expect(retried.map((row) => row.slugs[0])).toEqual(['a']);
    expect(await store.markDelivered({ ids: [retried[0].id], claimedBy: 'two', now: at(6.5), status: 204 })).toBe(1);
    rows = await deliveries();
    expect(rows[0]).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 204, lastError: null, deliveredAt: at(6.5), claimedBy: null, claimedUntil: null });
    expect(await store.backlog()).toEqual([{ product: 'ai-gateway', pending: 1, oldestCreatedAt: rows[1].createdAt }]);
  });

  it('releases unsent claims so they are due at once', async () => {
    await change('a');
    await store.fanOut(['ai-gateway'], T0, 100);
    const claimed = await store.claim({ product: 'ai-gateway', claimedBy: 'one', now: T0, until: at(30), limit: 10 });
    expect(
      await store.release(
        claimed.map((row) => row.id),
        'one',
        at(1),
      ),
    ).toBe(1);
    expect(await store.claim({ product: 'ai-gateway', claimedBy: 'two', now: at(1), until: at(31), limit: 10 })).toHaveLength(1);
  });

  it('prunes delivered rows and fully delivered events older than the cut-off, and keeps the rest', async () => {
    await change('old');
    await change('stuck');
    await store.fanOut(['ai-gateway'], T0, 100);
    const [old] = await store.claim({ product: 'ai-gateway', claimedBy: 'one', now: T0, until: at(30), limit: 1 });
    await store.markDelivered({ ids: [old.id], claimedBy: 'one', now: at(1), status: 200 });
    await change('recent');
    await store.fanOut(['ai-gateway'], at(100), 100);

    expect(await store.prune(at(50))).toEqual({ deliveries: 1, events: 1 });
    expect((await deliveries()).map((row) => row.slugs[0])).toEqual(['stuck', 'recent']);
    expect(await dataSource.getRepository(OutboxEvent).count()).toBe(2);
  });

  it('marks events written before the dispatcher existed as dispatched when it is installed', async () => {
    const legacy = await createTestDatabase();
    const legacySource = await new DataSource(dataSourceOptions({ url: legacy.url, migrations: [OUTBOX_MIGRATIONS[0]], applicationName: 'test' })).initialize();
    try {
      await runMigrationsLocked(legacySource);
      await legacySource.query(`insert into outbox_events (topic, payload) values ('projects.changed', '{"slugs":["history"]}')`);
      await legacySource.destroy();
      const upgraded = await new DataSource(dataSourceOptions({ url: legacy.url, entities: OUTBOX_ENTITIES, migrations: OUTBOX_MIGRATIONS, applicationName: 'test' })).initialize();
      try {
        await runMigrationsLocked(upgraded);
        expect(await new SyncDeliveryStore(upgraded).fanOut(PRODUCTS, T0, 100)).toBe(0);
      } finally {
        await upgraded.destroy();
      }
    } finally {
      if (legacySource.isInitialized) await legacySource.destroy();
      await legacy.drop();
    }
  });
});
