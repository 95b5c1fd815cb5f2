import { startService, RunningService } from '@arbor/platform';
import { ControlPlaneConfig } from '@arbor/config';
import { createTestDatabase, runBuiltApp, testIssuer, TestDatabase } from '@arbor/testing';
import request from 'supertest';
import { controlPlaneService } from '@arbor/control-plane';

const MASTER_KEY = Buffer.alloc(32, 1).toString('base64');

describe('control plane service', () => {
  let database: TestDatabase;
  let service: RunningService<ControlPlaneConfig>;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService(controlPlaneService, {
      CP_DATABASE_URL: database.url,
      CP_OIDC_ISSUER_URL: testIssuer(),
      CP_OIDC_AUDIENCE: 'control-plane',
      CP_SECRETS_MASTER_KEY: MASTER_KEY,
      CP_LISTEN_ADDR: '127.0.0.1:0',
      CP_SUITE_CONTROL_PLANE_URL: 'http://ui.arbor.test',
      LOG_FORMAT: 'json',
      CP_LOG: 'off',
    });
  });

  afterAll(async () => {
    await service?.close();
    await database?.drop();
  });

  it('answers /healthz with the text ok', async () => {
    const response = await request(service.url).get('/healthz');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.text).toBe('ok');
  });

  it('answers an unknown route with 404 in the error envelope', async () => {
    const response = await request(service.url).get('/api/v1/no-such-thing');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/api/v1/no-such-thing') } });
  });

  it('serves Prometheus metrics', async () => {
    const response = await request(service.url).get('/metrics');
    expect(response.status).toBe(200);
    expect(response.text).toContain('http_server_request_duration_seconds');
  });

  it('allows CORS only from the configured suite origins', async () => {
    const allowed = await request(service.url).options('/healthz').set('Origin', 'http://ui.arbor.test').set('Access-Control-Request-Method', 'GET');
    expect(allowed.headers['access-control-allow-origin']).toBe('http://ui.arbor.test');
    const refused = await request(service.url).options('/healthz').set('Origin', 'http://evil.test').set('Access-Control-Request-Method', 'GET');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers /readyz with the static answer of /healthz, without checking the database', async () => {
    const response = await request(service.url).get('/readyz');
    expect(response.status).toBe(200);
    expect(response.text).toBe('ok');
    await database.drop();
    const withoutDatabase = await request(service.url).get('/readyz');
    expect(withoutDatabase.status).toBe(200);
    expect(withoutDatabase.text).toBe('ok');
  });
});

describe('the built control plane (dist/apps/control-plane-api/main.js)', () => {
  const valid = {
    CP_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/control_plane',
    CP_OIDC_ISSUER_URL: 'http://localhost:8090/realms/arbor',
    CP_OIDC_AUDIENCE: 'control-plane',
    CP_SECRETS_MASTER_KEY: MASTER_KEY,
    CP_LISTEN_ADDR: '127.0.0.1:0',
  };

  it('refuses to start without CP_DATABASE_URL, naming it', async () => {
    const { CP_DATABASE_URL: _omitted, ...env } = valid;
    const result = await runBuiltApp('control-plane-api', env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ {2}CP_DATABASE_URL: is required/m);
    expect(result.stdout).not.toContain('listening');
  });

  it('refuses a malformed master key, naming the variable and what it must be', async () => {
    const result = await runBuiltApp('control-plane-api', { ...valid, CP_SECRETS_MASTER_KEY: 'abc' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('CP_SECRETS_MASTER_KEY: must be base64 of exactly 32 bytes');
  });

  it('lists every bad variable at once', async () => {
    const result = await runBuiltApp('control-plane-api', { CP_LISTEN_ADDR: 'nope' });
    expect(result.code).toBe(1);
    for (const variable of ['CP_DATABASE_URL', 'CP_OIDC_ISSUER_URL', 'CP_OIDC_AUDIENCE', 'CP_SECRETS_MASTER_KEY', 'CP_LISTEN_ADDR']) {
      expect(result.stderr).toContain(`${variable}: `);
    }
  });
});
