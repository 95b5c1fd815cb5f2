// Real tokens from the dev identity provider (the Keycloak stand-in) against a guarded app.
import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { INestApplication } from '@nestjs/common';
import { machineToken, personToken, testIssuer } from '@arbor/testing';
import request from 'supertest';
import { startAuthTestApp } from './testing/auth-test-app';

function decode(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, claims] = token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, claims };
}

/** A second, unrelated identity provider: same realm, other issuer URL and other keys. */
function startOtherIdp(): Promise<{ issuer: string; process: ChildProcess }> {
  const root = path.resolve(__dirname, '../../../..');
  const child = spawn(process.execPath, [path.join(root, 'tools/dev-idp/src/main.ts')], {
    cwd: root,
    env: { ...process.env, DEV_IDP_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`dev-idp exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /dev-idp ready at (\S+)/.exec(chunk.toString());
      if (match) resolve({ issuer: match[1], process: child });
    });
  });
}

describe('tokens from the dev identity provider', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await startAuthTestApp({ issuer: testIssuer(), audience: 'control-plane' });
  });

  afterAll(() => app.close());

  it("accepts alice's dev-cli password-grant token as a person", async () => {
    const response = await request(app.getHttpServer())
      .get('/me')
      .auth(await personToken('alice'), { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ kind: 'person', username: 'alice', email: 'alice@arbor.local', isAdmin: false });
  });

  it('treats the realm role control-plane-admin as an administrator', async () => {
    const admin = await request(app.getHttpServer())
      .get('/ops')
      .auth(await personToken('admin'), { type: 'bearer' });
    expect(admin.status).toBe(200);
    const alice = await request(app.getHttpServer())
      .get('/ops')
      .auth(await personToken('alice'), { type: 'bearer' });
    expect(alice.status).toBe(403);
    expect(alice.body.error.code).toBe('forbidden');
  });

  it('lets only administrators through @AdminOnly(), not machines', async () => {
    const admin = await request(app.getHttpServer())
      .get('/admin')
      .auth(await personToken('admin'), { type: 'bearer' });
    expect(admin.status).toBe(200);
    const machine = await request(app.getHttpServer())
      .get('/admin')
      .auth(await machineToken('ai-gateway-m2m'), { type: 'bearer' });
    expect(machine.status).toBe(403);
    const alice = await request(app.getHttpServer())
      .get('/admin')
      .auth(await personToken('alice'), { type: 'bearer' });
    expect(alice.status).toBe(403);
  });

  it("accepts ai-gateway-m2m's client-credentials token as a machine", async () => {
    const response = await request(app.getHttpServer())
      .get('/me')
      .auth(await machineToken('ai-gateway-m2m'), { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ kind: 'machine', clientId: 'ai-gateway-m2m' });
    const ops = await request(app.getHttpServer())
      .get('/ops')
      .auth(await machineToken('ai-gateway-m2m'), { type: 'bearer' });
    expect(ops.status).toBe(200);
  });

  it('refuses a token issued for other audiences (control-plane-m2m speaks to the products)', async () => {
    const response = await request(app.getHttpServer())
      .get('/me')
      .auth(await machineToken('control-plane-m2m'), { type: 'bearer' });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    expect(response.body.error.message).toMatch(/audience/);
  });

  it('refuses a token from another issuer', async () => {
    const other = await startOtherIdp();
    try {
      const response = await fetch(`${other.issuer}/protocol/openid-connect/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', client_id: 'dev-cli', username: 'alice', password: 'alice' }),
      });
      const { access_token } = (await response.json()) as { access_token: string };
      const refused = await request(app.getHttpServer()).get('/me').auth(access_token, { type: 'bearer' });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(refused.body.error.message).toMatch(/issuer/);
    } finally {
      other.process.kill('SIGTERM');
    }
  });

  it('refuses an expired token (its 300 s lifetime plus the 60 s skew have passed), even one it accepted before', async () => {
    const token = await personToken('alice');
    const { claims } = decode(token);
    expect((await request(app.getHttpServer()).get('/me').auth(token, { type: 'bearer' })).status).toBe(200);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'] });
    try {
      jest.setSystemTime((Number(claims['exp']) + 61) * 1000);
      const response = await request(app.getHttpServer()).get('/me').auth(token, { type: 'bearer' });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(response.body.error.message).toMatch(/expired/);
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses the same claims re-sent with alg none', async () => {
    const { claims } = decode(await personToken('alice'));
    const unsigned = [{ alg: 'none', typ: 'JWT' }, claims].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.';
    const response = await request(app.getHttpServer()).get('/me').auth(unsigned, { type: 'bearer' });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});
