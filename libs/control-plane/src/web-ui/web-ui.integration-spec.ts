import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneConfig } from '@arbor/config';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, testIssuer, TestDatabase } from '@arbor/testing';
import request from 'supertest';
import { controlPlaneServiceWithWebUi } from '../control-plane-api.module';
import { TEST_MASTER_KEY } from '../testing/control-plane-harness';

/** A bundle large enough to be worth compressing. */
const BUNDLE = Array.from({ length: 400 }, (_, i) => `export const value${i} = "component ${i}";`).join('\n');

/** A stand-in for the built single-page app: what Vite writes, in miniature. */
function writeWebRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'arbor-web-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(
    join(root, 'index.html'),
    '<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__"><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>',
  );
  writeFileSync(join(root, 'assets/index-abc123.js'), 'console.log("app")');
  writeFileSync(join(root, 'assets/vendor-def456.js'), BUNDLE);
  writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return root;
}

describe('the web UI at / (control-plane-api with its built UI)', () => {
  let database: TestDatabase;
  let service: RunningService<ControlPlaneConfig>;
  let webRoot: string;

  beforeAll(async () => {
    webRoot = writeWebRoot();
    database = await createTestDatabase();
    service = await startService(controlPlaneServiceWithWebUi(webRoot), {
      CP_DATABASE_URL: database.url,
      CP_OIDC_ISSUER_URL: testIssuer(),
      CP_OIDC_AUDIENCE: 'control-plane',
      CP_OIDC_CLIENT_ID: 'arbor-control-plane',
      CP_SECRETS_MASTER_KEY: TEST_MASTER_KEY,
      CP_LISTEN_ADDR: '127.0.0.1:0',
      CP_PUBLIC_URL: 'https://arbor.example.com',
      CP_SUITE_AI_GATEWAY_URL: 'https://ai.example.com/gateway',
      CP_LOG: 'off',
      LOG_FORMAT: 'json',
    });
  });

  afterAll(async () => {
    await service?.close();
    await database?.drop();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('answers / and every history route with index.html, never cached, with a fresh nonce in the page and the policy', async () => {
    const nonces = new Set<string>();
    for (const path of ['/', '/projects/5b0c', '/permissions/some-user?tab=matrix']) {
      const response = await request(service.url).get(path).set('accept', 'text/html');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-store');
      const nonce = /content="([^"]+)"/.exec(response.text)?.[1] ?? '';
      expect(nonce).not.toBe('__CSP_NONCE__');
      nonces.add(nonce);
      const policy = response.headers['content-security-policy'];
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain(`style-src 'self' 'nonce-${nonce}'`);
      expect(policy).toContain(`connect-src 'self' ${new URL(testIssuer()).origin} https://ai.example.com;`);
      expect(policy).toContain("frame-ancestors 'none'");
    }
    expect(nonces.size).toBe(3);
  });

  it('serves hashed assets for a year, other files revalidated, and a missing asset as 404', async () => {
    const asset = await request(service.url).get('/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await request(service.url).get('/favicon.svg');
    expect(icon.headers['cache-control']).toBe('no-cache');
    const missing = await request(service.url).get('/assets/index-gone.js').set('accept', '*/*');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('compresses what it serves with brotli or gzip as the browser accepts, keeping the caching headers', async () => {
    for (const [accepted, encoding] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
      ['identity', undefined],
    ] as const) {
      // fetch decodes the body and keeps the header that says how it came.
      const response = await fetch(`${service.url}/assets/vendor-def456.js`, { headers: { 'accept-encoding': accepted } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding') ?? undefined).toBe(encoding);
      expect(response.headers.get('vary')).toMatch(/accept-encoding/i);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await response.text()).toBe(BUNDLE);
    }
    const page = await fetch(`${service.url}/projects/5b0c`, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  it('leaves the API, health and metrics as they are', async () => {
    const unknown = await request(service.url).get('/api/v1/no-such-thing').set('accept', 'text/html');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect((await request(service.url).get('/healthz')).text).toBe('ok');
    expect((await request(service.url).get('/readyz')).text).toBe('ok');
    expect((await request(service.url).get('/api/v1/me')).status).toBe(401);
  });

  it('tells the UI, without a token, the issuer and client to sign in with and the suite modules', async () => {
    const response = await request(service.url).get('/api/v1/ui/config');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      issuer: testIssuer(),
      client_id: 'arbor-control-plane',
      public_url: 'https://arbor.example.com',
      modules: [
        { key: 'control-plane', url: 'https://arbor.example.com' },
        { key: 'ai-gateway', url: 'https://ai.example.com/gateway' },
      ],
    });
  });
});
