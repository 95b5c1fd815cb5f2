import { Client } from 'pg';
import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

// The fixed subject of the demo administrator in deploy/keycloak/realm-export.json.
const ADMIN_SUBJECT = 'e6bb361f-6782-4c86-8e89-a804a599a83e';

interface DeliveryRow {
  product: string;
  slugs?: string[];
  /** Seconds before now. */
  age?: number;
  attempts?: number;
  /** Seconds from now (negative: in the past). */
  dueIn?: number;
  /** Seconds from now of a dispatcher's lease, when one holds the row. */
  leasedFor?: number;
  lastStatus?: number | null;
  lastError?: string | null;
  delivered?: boolean;
}

describe('sync deliveries for operators (/api/v1/sync/deliveries)', () => {
  let cp: ControlPlaneHarness;
  let admin: string;

  beforeAll(async () => {
    cp = await startControlPlane({
      CP_AI_GATEWAY_API_URL: 'http://127.0.0.1:4000',
      CP_MCP_GATEWAY_API_URL: 'http://127.0.0.1:4444',
      CP_WIKI_API_URL: 'http://127.0.0.1:4555',
      CP_M2M_CLIENT_ID: 'control-plane-m2m',
      CP_M2M_CLIENT_SECRET: 'dev-control-plane-m2m-secret',
    });
    admin = await cp.person('admin');
  });

  afterAll(() => cp.close());

  beforeEach(async () => {
    await cp.dataSource.query('delete from sync_deliveries');
    await cp.dataSource.query("delete from audit_log where action = 'sync_delivery.retried'");
  });

  const get = (path: string, token = admin) => request(cp.url).get(path).auth(token, { type: 'bearer' });
  const retry = (id: string, token = admin) => request(cp.url).post(`/api/v1/sync/deliveries/${id}/retry`).auth(token, { type: 'bearer' });

  /** A delivery as the dispatcher would have left it, with the outbox event it carries; returns its id. */
  async function insertDelivery(row: DeliveryRow): Promise<string> {
    const slugs = row.slugs ?? ['payments'];
    const age = row.age ?? 0;
    const [event] = (await cp.dataSource.query(
      `insert into outbox_events (topic, payload, created_at, dispatched_at)
       values ('projects.changed', $1, now() - make_interval(secs => $2), now()) returning id::text as id, created_at`,
      [{ slugs }, age],
    )) as { id: string; created_at: Date }[];
    const leased = row.leasedFor !== undefined;
    const [delivery] = (await cp.dataSource.query(
      `insert into sync_deliveries (product, event_id, slugs, created_at, state, attempts, next_attempt_at,
                                    claimed_by, claimed_until, last_attempt_at, last_status, last_error, delivered_at)
       values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7), $8,
               case when $8::text is null then null else now() + make_interval(secs => $7) end, $9, $10, $11, $12)
       returning id::text as id`,
      [
        row.product,
        event.id,
        JSON.stringify(slugs),
        event.created_at,
        row.delivered ? 'delivered' : 'pending',
        row.attempts ?? 0,
        leased ? row.leasedFor : (row.dueIn ?? 0),
        // A claim's lease end is its due time too.
        leased ? 'dispatcher-1:claim-7' : null,
        (row.attempts ?? 0) > 0 ? new Date() : null,
        row.lastStatus ?? null,
        row.lastError ?? null,
        row.delivered ? new Date() : null,
      ],
    )) as { id: string }[];
    return delivery.id;
  }

  const dueAt = async (id: string): Promise<Date> =>
    ((await cp.dataSource.query('select next_attempt_at from sync_deliveries where id = $1', [id])) as { next_attempt_at: Date }[])[0].next_attempt_at;
  const retriedAudit = async () =>
    (await cp.dataSource.query("select actor_kind, actor_subject, target_id, details from audit_log where action = 'sync_delivery.retried' order by id")) as {
      actor_kind: string;
      actor_subject: string;
      target_id: string;
      details: Record<string, unknown>;
    }[];

  it('is for administrators only: no token 401, another person or a machine 403, and nothing moves', async () => {
    const id = await insertDelivery({ product: 'ai-gateway', attempts: 2, dueIn: 3600 });
    const before = await dueAt(id);
    expect((await request(cp.url).get('/api/v1/sync/deliveries')).status).toBe(401);
    expect((await request(cp.url).post(`/api/v1/sync/deliveries/${id}/retry`)).status).toBe(401);
    for (const token of [await cp.person('alice'), await cp.machine('ai-gateway-m2m')]) {
      expect((await get('/api/v1/sync/deliveries', token)).status).toBe(403);
      expect((await retry(id, token)).status).toBe(403);
    }
    expect(await dueAt(id)).toEqual(before);
    expect(await retriedAudit()).toEqual([]);
  });

  it('lists every pending delivery oldest first with its retry state, and counts by product (configured targets included)', async () => {
    const fresh = await insertDelivery({ product: 'ai-gateway', slugs: ['search'] });
    const failing = await insertDelivery({
      product: 'ai-gateway',
      slugs: ['payments', 'billing'],
      age: 120,
      attempts: 3,
      dueIn: 40,
      lastStatus: 503,
      lastError: 'HTTP 503 Service Unavailable',
    });
    const refused = await insertDelivery({ product: 'mcp-gateway', age: 30, attempts: 1, dueIn: 5, lastError: 'connect ECONNREFUSED 127.0.0.1:4444' });
    const sending = await insertDelivery({ product: 'mcp-gateway', age: 10, leasedFor: 30 });
    await insertDelivery({ product: 'ai-gateway', delivered: true, attempts: 1, lastStatus: 204 });
    const unconfigured = await insertDelivery({ product: 'docs', age: 5 });

    const response = await get('/api/v1/sync/deliveries?state=pending');
    expect(response.status).toBe(200);
    expect(response.body.state).toBe('pending');
    expect(response.body.next_after_id).toBeNull();
    expect(response.body.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([fresh, failing, refused, sending, unconfigured]);
    const shown = response.body.deliveries[1];
    expect(shown).toEqual({
      id: failing,
      product: 'ai-gateway',
      event_id: expect.stringMatching(/^[0-9]+$/),
      slugs: ['payments', 'billing'],
      state: 'pending',
      attempts: 3,
      next_attempt_at: expect.any(String),
      in_flight: false,
      last_attempt_at: expect.any(String),
      last_status: 503,
      last_error: 'HTTP 503 Service Unavailable',
      created_at: expect.any(String),
      age_seconds: expect.any(Number),
    });
    expect(shown.age_seconds).toBeGreaterThanOrEqual(120);
    expect(shown.age_seconds).toBeLessThan(130);
    expect(Date.parse(shown.next_attempt_at) - Date.now()).toBeGreaterThan(30_000);
    expect(response.body.deliveries[2]).toMatchObject({ last_status: null, last_error: 'connect ECONNREFUSED 127.0.0.1:4444' });
    expect(response.body.deliveries[3]).toMatchObject({ id: sending, in_flight: true, attempts: 0 });

    expect(response.body.summary).toEqual([
      { product: 'ai-gateway', pending: 2, failing: 1, oldest_pending_at: shown.created_at, oldest_pending_age_seconds: expect.any(Number) },
      { product: 'docs', pending: 1, failing: 0, oldest_pending_at: expect.any(String), oldest_pending_age_seconds: expect.any(Number) },
      { product: 'mcp-gateway', pending: 2, failing: 1, oldest_pending_at: expect.any(String), oldest_pending_age_seconds: expect.any(Number) },
      { product: 'wiki', pending: 0, failing: 0, oldest_pending_at: null, oldest_pending_age_seconds: null },
    ]);
    expect(response.body.summary[0].oldest_pending_age_seconds).toBeGreaterThanOrEqual(120);

    // Without a state, the same view.
    expect((await get('/api/v1/sync/deliveries')).body.deliveries).toHaveLength(5);
  });

  it('shows only deliveries already tried with state=failing, by product if asked, a page at a time', async () => {
    const first = await insertDelivery({ product: 'ai-gateway', attempts: 1, lastStatus: 500 });
    await insertDelivery({ product: 'ai-gateway' });
    const second = await insertDelivery({ product: 'mcp-gateway', attempts: 4, lastStatus: 502 });
    const third = await insertDelivery({ product: 'ai-gateway', attempts: 2, lastStatus: 500 });

    const failing = await get('/api/v1/sync/deliveries?state=failing');
    expect(failing.status).toBe(200);
    expect(failing.body.state).toBe('failing');
    expect(failing.body.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([first, second, third]);

    const ai = await get('/api/v1/sync/deliveries?state=failing&product=ai-gateway');
    expect(ai.body.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([first, third]);
    // The summary is the overview, whatever the filters.
    expect(ai.body.summary.map((product: { product: string }) => product.product)).toEqual(['ai-gateway', 'mcp-gateway', 'wiki']);

    const page1 = await get('/api/v1/sync/deliveries?state=failing&limit=2');
    expect(page1.body.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([first, second]);
    expect(page1.body.next_after_id).toBe(second);
    const page2 = await get(`/api/v1/sync/deliveries?state=failing&limit=2&after_id=${page1.body.next_after_id}`);
    expect(page2.body.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([third]);
    expect(page2.body.next_after_id).toBeNull();
  });

  it('refuses a bad query with 400 naming the parameters', async () => {
    const response = await get('/api/v1/sync/deliveries?state=delivered&limit=0&product=AI%20Gateway&after_id=x&order=desc');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(Object.keys(response.body.error.details.fields).sort()).toEqual(['after_id', 'limit', 'order', 'product', 'state']);
    expect((await get('/api/v1/sync/deliveries?limit=501')).status).toBe(400);
  });

  it('makes a pending delivery due now, keeps its history, audits it and wakes the dispatcher', async () => {
    const id = await insertDelivery({ product: 'ai-gateway', attempts: 6, dueIn: 280, lastStatus: 500, lastError: 'HTTP 500' });
    const wasDueAt = await dueAt(id);
    const listener = new Client({ connectionString: cp.database.url });
    await listener.connect();
    try {
      await listener.query('listen arbor_outbox');
      const heard = new Promise<string | undefined>((resolve) => {
        listener.once('notification', (notice) => resolve(notice.payload));
        setTimeout(() => resolve('nothing heard within 2 s'), 2_000).unref();
      });

      const before = Date.now();
      const response = await retry(id);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id, product: 'ai-gateway', state: 'pending', attempts: 6, last_status: 500, last_error: 'HTTP 500', in_flight: false });
      expect(Date.parse(response.body.next_attempt_at)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(response.body.next_attempt_at)).toBeGreaterThan(before - 5_000);
      expect((await dueAt(id)).getTime()).toBe(Date.parse(response.body.next_attempt_at));
      expect(await heard).toBe('sync.retry');
    } finally {
      await listener.end();
    }
    expect(await retriedAudit()).toEqual([
      {
        actor_kind: 'person',
        actor_subject: ADMIN_SUBJECT,
        target_id: id,
        details: { product: 'ai-gateway', event_id: expect.any(String), attempts: 6, was_due_at: wasDueAt.toISOString() },
      },
    ]);
  });

  it('retries a delivery whose dispatcher died holding it (its lease is over)', async () => {
    const id = await insertDelivery({ product: 'mcp-gateway', attempts: 1, leasedFor: -60 });
    const response = await retry(id);
    expect(response.status).toBe(200);
    expect(response.body.in_flight).toBe(false);
    expect(await retriedAudit()).toHaveLength(1);
  });

  it('refuses a delivered, an in-flight, an unknown and a malformed id, changing and auditing nothing', async () => {
    const delivered = await insertDelivery({ product: 'ai-gateway', delivered: true, attempts: 1, lastStatus: 204 });
    const sending = await insertDelivery({ product: 'ai-gateway', attempts: 2, leasedFor: 30 });
    const leaseEnd = await dueAt(sending);

    const done = await retry(delivered);
    expect(done.status).toBe(409);
    expect(done.body.error).toMatchObject({ code: 'sync_delivery_delivered', details: { delivered_at: expect.any(String) } });

    const busy = await retry(sending);
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'sync_delivery_in_flight', details: { lease_ends_at: leaseEnd.toISOString() } });
    expect(await dueAt(sending)).toEqual(leaseEnd);

    const unknown = await retry('9223372036854775807');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('sync_delivery_not_found');

    for (const bad of ['abc', '0', '-1', '9223372036854775808', '1.5']) {
      const response = await retry(bad);
      expect({ bad, status: response.status, code: response.body.error?.code }).toEqual({ bad, status: 400, code: 'invalid_request' });
    }
    expect(await retriedAudit()).toEqual([]);
  });
});
