import { Logger } from '@nestjs/common';
import { DEFAULT_SYNC_PATH } from '@arbor/config';
import { OUTBOX_CHANNEL, SYNC_RETRY_REQUESTED } from '@arbor/outbox';
import { FakeProduct } from '../testing/fake-product';
import { inProcessDispatcher, InProcessDispatcher } from '../testing/in-process-dispatcher';
import { ManualClock } from '../testing/manual-clock';
import { eventually, openOutboxDatabase, OutboxDatabase } from '../testing/outbox-database';
import { traceIdOf, verifiedSyncToken } from '../testing/sync-tokens';

const TRACE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('the sync dispatcher (real PostgreSQL, HTTP and tokens)', () => {
  let db: OutboxDatabase;
  const products: FakeProduct[] = [];
  let running: InProcessDispatcher | undefined;

  const product = async (answer?: FakeProduct['answer']) => {
    const started = await FakeProduct.start(answer);
    products.push(started);
    return started;
  };
  const endpoint = (name: string, fake: FakeProduct) => ({ product: name, url: `${fake.url}${DEFAULT_SYNC_PATH}` });

  beforeAll(async () => {
    Logger.overrideLogger(false);
    db = await openOutboxDatabase();
  });

  afterEach(async () => {
    for (const fake of products.splice(0)) await fake.stop().catch(() => undefined);
    await running?.dispatcher.stop();
    running = undefined;
    await db.dataSource.query('truncate sync_deliveries, outbox_events restart identity');
  });

  afterAll(async () => {
    await db.close();
  });

  it("coalesces the pending changes of a product into one call: their slugs, its token, the first change's trace", async () => {
    const ai = await product();
    const first = await db.change(['beta'], TRACE);
    await db.change(['alpha', 'beta']);
    await db.change(['gamma']);

    running = inProcessDispatcher(db, [endpoint('ai-gateway', ai)]);
    running.dispatcher.start();
    await ai.waitFor(() => ai.requests.length >= 1);
    await eventually(
      () => db.deliveries(),
      (rows) => rows.every((row) => row.state === 'delivered'),
    );

    expect(ai.requests).toHaveLength(1);
    const [call] = ai.requests;
    expect(call.path).toBe(DEFAULT_SYNC_PATH);
    expect(JSON.parse(call.body)).toEqual({ slugs: ['alpha', 'beta', 'gamma'] });
    expect(call.headers['content-type']).toBe('application/json');
    expect(traceIdOf(call.headers['traceparent'])).toBe(traceIdOf(first.traceparent));
    expect(traceIdOf(first.traceparent)).toBe(traceIdOf(TRACE));
    const claims = await verifiedSyncToken(call.headers['authorization'], 'ai-gateway');
    expect(claims['azp']).toBe('control-plane-m2m');

    expect((await db.deliveries()).map((row) => [row.attempts, row.lastStatus])).toEqual([
      [1, 204],
      [1, 204],
      [1, 204],
    ]);
    expect(await running.sample('sync_deliveries_total', { product: 'ai-gateway', outcome: 'delivered' })).toBe(3);
    expect(await running.sample('sync_delivery_latency_seconds_count', { product: 'ai-gateway' })).toBe(3);
    expect(await running.sample('sync_queue_depth', { product: 'ai-gateway' })).toBe(0);
  });

  it('retries a 500, a timeout and a refused connection after 5 s, 10 s and 20 s of its clock, then delivers', async () => {
    const clock = new ManualClock();
    const answers: FakeProduct['answer'][] = [() => 500, () => 'stall', () => 200];
    const shop = await product((request, index) => answers[index](request, index));
    running = inProcessDispatcher(db, [endpoint('shop', shop)], { clock, random: () => 0.5, requestTimeoutMs: 10_000 });
    running.dispatcher.start();
    await db.change(['alpha']);

    const attempt = (n: number) =>
      eventually(
        () => db.deliveries('shop'),
        ([row]) => row?.attempts === n,
      );
    const delayAfter = async (n: number) => {
      const [row] = await attempt(n);
      expect(row.lastAttemptAt!.getTime()).toBe(clock.now());
      return row.nextAttemptAt.getTime() - row.lastAttemptAt!.getTime();
    };
    // Moves the clock to just before the delivery is due and checks that nothing is sent early.
    const almostDue = async () => {
      const [row] = await db.deliveries('shop');
      const sent = shop.requests.length;
      clock.advanceTo(row.nextAttemptAt.getTime() - 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(shop.requests.length).toBe(sent);
      clock.advance(1);
    };

    // 1: 500. Nominal 5 s, the jitter's middle (random 0.5) of 5–6 s.
    expect(await delayAfter(1)).toBe(5500);
    const [failed] = await db.deliveries('shop');
    expect(failed).toMatchObject({ state: 'pending', lastStatus: 500, lastError: expect.stringMatching(/^HTTP 500: /), claimedBy: null });

    // 2: no answer; the call is given up after the 10 s request timeout, by the clock.
    await almostDue();
    await shop.waitFor(() => shop.requests.length === 2);
    clock.advance(9_999);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await db.deliveries('shop'))[0].attempts).toBe(1);
    clock.advance(1);
    expect(await delayAfter(2)).toBe(10_000);
    expect((await db.deliveries('shop'))[0]).toMatchObject({ lastStatus: null, lastError: 'no answer within 10 s' });

    // 3: connection refused.
    await shop.stop();
    await almostDue();
    expect(await delayAfter(3)).toBe(20_000);
    expect((await db.deliveries('shop'))[0]).toMatchObject({ lastStatus: null, lastError: expect.stringContaining('ECONNREFUSED') });

    // 4: the product is back and answers 200.
    await shop.restart();
    await almostDue();
    const [delivered] = await eventually(
      () => db.deliveries('shop'),
      ([row]) => row.state === 'delivered',
    );
    expect(delivered).toMatchObject({ attempts: 4, lastStatus: 200, lastError: null, deliveredAt: new Date(clock.now()) });
    expect(shop.requests.map((request) => request.slugs)).toEqual([['alpha'], ['alpha'], ['alpha']]);
    expect(await running.sample('sync_deliveries_total', { product: 'shop', outcome: 'rejected' })).toBe(1);
    expect(await running.sample('sync_deliveries_total', { product: 'shop', outcome: 'timeout' })).toBe(1);
    expect(await running.sample('sync_deliveries_total', { product: 'shop', outcome: 'unreachable' })).toBe(1);
    expect(await running.sample('sync_deliveries_total', { product: 'shop', outcome: 'delivered' })).toBe(1);
  });

  it('keeps delivering to a healthy product within a second while another one hangs and a third refuses', async () => {
    const healthy = await product();
    const hanging = await product(() => 'stall');
    const refusing = await product();
    await refusing.stop();
    // A poll far slower than the promise: only the notification can bring the change in time.
    running = inProcessDispatcher(db, [endpoint('healthy', healthy), endpoint('hanging', hanging), endpoint('refusing', refusing)], { pollIntervalMs: 5000 });
    running.dispatcher.start();

    for (const slug of ['first', 'second']) {
      const committed = Date.now();
      await db.change([slug]);
      await healthy.waitFor(() => healthy.slugs.includes(slug), 1000, `${slug} at the healthy product within 1 s`);
      expect(healthy.requests.at(-1)!.receivedAt - committed).toBeLessThan(1000);
      // The hanging product holds its first call open all along.
      await hanging.waitFor(() => hanging.requests.length === 1);
    }
    await eventually(
      () => db.deliveries('refusing'),
      (rows) => rows.length === 2 && rows.every((row) => row.attempts === 1),
    );
    // The healthy product has had both calls; their answers are recorded a moment after it answered.
    await eventually(
      () => db.deliveries('healthy'),
      (rows) => rows.length === 2 && rows.every((row) => row.state === 'delivered'),
    );
    expect(await running.sample('sync_deliveries_total', { product: 'refusing', outcome: 'unreachable' })).toBe(2);
    expect(await running.sample('sync_queue_depth', { product: 'refusing' })).toBe(2);
    expect(await running.sample('sync_queue_depth', { product: 'hanging' })).toBe(2);
    expect(await running.sample('sync_queue_depth', { product: 'healthy' })).toBe(0);
    expect(await running.sample('sync_oldest_pending_age_seconds', { product: 'hanging' })).toBeGreaterThan(0);
  });

  it('listens again when its LISTEN connection is cut, so changes still arrive without waiting for a poll', async () => {
    const ai = await product();
    running = inProcessDispatcher(db, [endpoint('ai-gateway', ai)], { pollIntervalMs: 60_000 });
    running.dispatcher.start();
    const listeners = () =>
      db.dataSource.query(`select pid from pg_stat_activity where datname = current_database() and application_name = 'sync-dispatcher-listen'`) as Promise<{ pid: number }[]>;
    const [before] = await eventually(listeners, (rows) => rows.length === 1);
    await db.dataSource.query('select pg_terminate_backend($1)', [before.pid]);
    await eventually(listeners, (rows) => rows.length === 1 && rows[0].pid !== before.pid);
    await new Promise((resolve) => setTimeout(resolve, 100));

    await db.change(['after-reconnect']);
    await ai.waitFor(() => ai.slugs.includes('after-reconnect'), 1000, 'the change within 1 s of its commit');
  });

  it('tries again at once when an operator makes a failed delivery due and notifies', async () => {
    const flaky = await product((_request, index) => (index === 0 ? 503 : 204));
    running = inProcessDispatcher(db, [endpoint('ai-gateway', flaky)], { pollIntervalMs: 60_000 });
    running.dispatcher.start();
    await db.change(['alpha']);
    const [failed] = await eventually(
      () => db.deliveries(),
      ([row]) => row?.attempts === 1,
    );
    expect(failed.nextAttemptAt.getTime() - Date.now()).toBeGreaterThan(3000);

    // What the control plane's "retry now" does.
    await db.dataSource.query(`update sync_deliveries set next_attempt_at = now() where id = $1`, [failed.id]);
    await db.dataSource.query(`select pg_notify($1, $2)`, [OUTBOX_CHANNEL, SYNC_RETRY_REQUESTED]);
    await flaky.waitFor(() => flaky.requests.length === 2, 1000, 'the retry within 1 s');
    await eventually(
      () => db.deliveries(),
      ([row]) => row.state === 'delivered',
    );
  });

  it('asks for a fresh token once when a product answers 401', async () => {
    const strict = await product((_request, index) => (index === 0 ? 401 : 204));
    running = inProcessDispatcher(db, [endpoint('ai-gateway', strict)]);
    running.dispatcher.start();
    await db.change(['alpha']);
    await eventually(
      () => db.deliveries(),
      ([row]) => row?.state === 'delivered',
    );
    expect(strict.requests).toHaveLength(2);
    const [refused, retried] = strict.requests.map((request) => request.headers['authorization']);
    expect(retried).not.toBe(refused);
    expect((await db.deliveries())[0]).toMatchObject({ attempts: 1, lastStatus: 204 });

    // A product that keeps refusing the token fails the attempt after that one retry.
    strict.answer = () => 401;
    await db.change(['beta']);
    const [, failed] = await eventually(
      () => db.deliveries(),
      (rows) => rows[1]?.attempts === 1,
    );
    expect(failed).toMatchObject({ state: 'pending', lastStatus: 401 });
    expect(strict.requests).toHaveLength(4);
  });

  it('on stop, claims nothing more and finishes the call in flight', async () => {
    const slow = await product(() => ({ status: 204, afterMs: 500 }));
    running = inProcessDispatcher(db, [endpoint('ai-gateway', slow)]);
    running.dispatcher.start();
    await db.change(['alpha']);
    await slow.waitFor(() => slow.requests.length === 1);

    const stopping = running.dispatcher.stop();
    await db.change(['beta']);
    await stopping;

    const rows = await db.deliveries();
    expect(rows.map((row) => [row.slugs, row.state])).toEqual([[['alpha'], 'delivered']]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slow.requests).toHaveLength(1);
    expect(await db.dataSource.query('select count(*)::int as n from outbox_events where dispatched_at is null')).toEqual([{ n: 1 }]);
  });

  it('prunes delivered rows after the retention, and keeps what is still owed', async () => {
    const clock = new ManualClock();
    const up = await product();
    const down = await product();
    await down.stop();
    running = inProcessDispatcher(db, [endpoint('up', up), endpoint('down', down)], { clock, retentionMs: 3_600_000, pruneIntervalMs: 600_000 });
    running.dispatcher.start();
    await db.change(['alpha']);
    await eventually(
      () => db.deliveries(),
      (rows) => rows.length === 2 && rows.every((row) => row.attempts === 1),
    );

    clock.advance(3_600_000 + 600_000);
    const [kept] = await eventually(
      () => db.deliveries(),
      (rows) => rows.length === 1,
    );
    expect(kept).toMatchObject({ product: 'down', state: 'pending' });
    expect(await db.dataSource.query('select count(*)::int as n from outbox_events')).toEqual([{ n: 1 }]);
  });
});
