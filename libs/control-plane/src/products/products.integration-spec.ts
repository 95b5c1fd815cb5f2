import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

describe('GET /api/v1/products', () => {
  let cp: ControlPlaneHarness;

  beforeAll(async () => {
    // Two products by suite URL (the harness's), one by its API URL alone, and the control plane's own suite URL.
    cp = await startControlPlane({
      CP_SUITE_CONTROL_PLANE_URL: 'http://localhost:8080',
      CP_SHOP_API_URL: 'http://localhost:5000/',
      CP_AI_GATEWAY_API_URL: 'http://localhost:4001',
      CP_M2M_CLIENT_ID: 'control-plane-m2m',
      CP_M2M_CLIENT_SECRET: 'dev-control-plane-m2m-secret',
    });
  });

  afterAll(() => cp?.close());

  it('lists every configured product but the control plane, with its sign-in key and role keys', async () => {
    const response = await request(cp.url)
      .get('/api/v1/products')
      .auth(await cp.person('alice'), { type: 'bearer' });
    expect(response.status).toBe(200);
    const roles = (key: string) => [
      { key: `${key}.operator`, role: 'operator' },
      { key: `${key}.viewer`, role: 'viewer' },
    ];
    expect(response.body).toEqual({
      products: [
        { key: 'ai-gateway', sign_in_key: 'ai-gateway', roles: roles('ai-gateway'), suite_url: 'http://localhost:4000', sync_enabled: true },
        { key: 'mcp-gateway', sign_in_key: 'mcp-gateway', roles: roles('mcp-gateway'), suite_url: 'http://localhost:4444', sync_enabled: false },
        { key: 'shop', sign_in_key: 'shop', roles: roles('shop'), suite_url: null, sync_enabled: true },
      ],
    });
  });

  it('is open to machine clients too, and refuses a call without a token', async () => {
    expect(
      (
        await request(cp.url)
          .get('/api/v1/products')
          .auth(await cp.machine('mcp-gateway-m2m'), { type: 'bearer' })
      ).status,
    ).toBe(200);
    expect((await request(cp.url).get('/api/v1/products')).status).toBe(401);
  });

  it('is what grants are validated against', async () => {
    const admin = await cp.person('admin');
    const { id } = (await request(cp.url).post('/api/v1/users').auth(admin, { type: 'bearer' }).send({ email: 'erin@arbor.local' })).body as { id: string };
    const accepted = await request(cp.url)
      .put(`/api/v1/users/${id}/permissions`)
      .auth(admin, { type: 'bearer' })
      .send({ workspace: ['shop', 'shop.viewer'], projects: {} });
    expect(accepted.status).toBe(200);
    const refused = await request(cp.url)
      .put(`/api/v1/users/${id}/permissions`)
      .auth(admin, { type: 'bearer' })
      .send({ workspace: ['control-plane', 'billing.viewer'], projects: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual({ keys: ['control-plane', 'billing.viewer'] });
  });
});
