import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

describe("GET /api/v1/dashboard/summary (the control plane's card)", () => {
  let cp: ControlPlaneHarness;

  beforeAll(async () => {
    cp = await startControlPlane();
    const admin = await cp.person('admin');
    for (const slug of ['alpha', 'beta']) await request(cp.url).post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug, name: slug });
  });

  afterAll(() => cp.close());

  it('shows an administrator the projects, the active users and the failing sync deliveries', async () => {
    await cp.userId('alice');
    // One delivery the AI gateway refused three times, one not tried yet (pending, not failing).
    const [event] = (await cp.dataSource.query(
      `insert into outbox_events (topic, payload, created_at, dispatched_at) values ('projects.changed', '{"slugs":["alpha"]}', now(), now()) returning id`,
    )) as { id: string }[];
    await cp.dataSource.query(
      `insert into sync_deliveries (product, event_id, slugs, created_at, attempts, next_attempt_at)
       values ('ai-gateway', $1, '["alpha"]', now(), 3, now() + interval '1 minute'), ('mcp-gateway', $1, '["alpha"]', now(), 0, now())`,
      [event.id],
    );
    const response = await request(cp.url)
      .get('/api/v1/dashboard/summary')
      .auth(await cp.person('admin'), { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ product: 'control-plane', title: 'Control plane', status: 'degraded' });
    expect(response.body.tiles.map(({ label, value }: { label: string; value: number }) => [label, value])).toEqual([
      ['Projects', 2],
      ['Active users', 2],
      ['Failing sync deliveries', 1],
    ]);
  });

  it('shows a member only how many projects they belong to', async () => {
    const response = await request(cp.url)
      .get('/api/v1/dashboard/summary')
      .auth(await cp.person('bob'), { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok', tiles: [{ label: 'Your projects', value: 0, unit: 'projects' }] });
  });

  it('is for persons only', async () => {
    expect(
      (
        await request(cp.url)
          .get('/api/v1/dashboard/summary')
          .auth(await cp.machine(), { type: 'bearer' })
      ).status,
    ).toBe(403);
    expect((await request(cp.url).get('/api/v1/dashboard/summary')).status).toBe(401);
  });
});
