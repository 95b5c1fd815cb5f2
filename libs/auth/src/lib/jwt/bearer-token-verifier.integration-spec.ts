import { createServer } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { startAuthTestApp } from '../testing/auth-test-app';
import { createSigningKey, FakeIdentityProvider, forgeToken, hmacWithPublicKey, mintToken, TestSigningKey } from '../testing/fake-identity-provider';

const AUDIENCE = 'control-plane';
const CHALLENGE = /^Bearer realm="control-plane", error="invalid_token", error_description="[^"]+"$/;

describe('bearer token verification over HTTP', () => {
  const idp = new FakeIdentityProvider();
  let app: INestApplication;
  let rsa: TestSigningKey;
  let ec: TestSigningKey;
  let announcesRs512: TestSigningKey;
  let announcesEs256: TestSigningKey;
  let ecUnannounced: TestSigningKey;
  let stranger: TestSigningKey;

  beforeAll(async () => {
    rsa = createSigningKey('rsa-1', 'RS256');
    ec = createSigningKey('ec-1', 'ES256');
    announcesRs512 = createSigningKey('rsa-announces-rs512', 'RS256', 'RS512');
    announcesEs256 = createSigningKey('rsa-announces-es256', 'RS256', 'ES256');
    ecUnannounced = createSigningKey('ec-unannounced', 'ES256', null);
    stranger = createSigningKey('stranger', 'RS256');
    idp.keys = [rsa, ec, announcesRs512, announcesEs256, ecUnannounced];
    await idp.start();
    app = await startAuthTestApp({ issuer: idp.issuer, audience: AUDIENCE });
  });

  afterAll(async () => {
    await app?.close();
    await idp.stop();
  });

  const me = (token?: string) => {
    const call = request(app.getHttpServer()).get('/me');
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };

  it('accepts a valid person token and hands the handler its principal', async () => {
    const claims = idp.personClaims(AUDIENCE);
    const response = await me(mintToken(rsa, claims)).expect(200);
    expect(response.body).toEqual({
      kind: 'person',
      subject: claims['sub'],
      email: 'alice@example.com',
      name: 'Alice Example',
      username: 'alice',
      roles: ['default-roles-arbor'],
      clientId: 'arbor-control-plane',
      isAdmin: false,
      claims,
    });
  });

  it('accepts ES256, an audience array that contains ours, and a lower-case scheme', async () => {
    await me(mintToken(ec, idp.personClaims(AUDIENCE))).expect(200);
    const token = mintToken(rsa, idp.personClaims(['ai-gateway', AUDIENCE]));
    await request(app.getHttpServer()).get('/me').set('Authorization', `bearer ${token}`).expect(200);
  });

  it('accepts a token 30 s past its expiry (clock skew up to 60 s)', async () => {
    const now = Math.floor(Date.now() / 1000);
    await me(mintToken(rsa, idp.personClaims(AUDIENCE, { iat: now - 330, exp: now - 30 }))).expect(200);
  });

  it('leaves unguarded routes public', async () => {
    await request(app.getHttpServer()).get('/public').expect(200, { ok: true });
  });

  it('answers a request without a token with the bare Bearer challenge (RFC 6750 §3.1)', async () => {
    for (const authorization of [undefined, 'Basic YWxpY2U6c2VjcmV0', 'Bearer ']) {
      const call = request(app.getHttpServer()).get('/me');
      const response = await (authorization === undefined ? call : call.set('Authorization', authorization)).expect(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="control-plane"');
      expect(response.body.error.code).toBe('missing_token');
    }
  });

  describe('refuses with 401 invalid_token and says why', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => string, RegExp]> = [
      ['a token for another audience', () => mintToken(rsa, idp.personClaims('ai-gateway')), /wrong audience/],
      ['a token from another issuer', () => mintToken(rsa, idp.personClaims(AUDIENCE, { iss: 'http://127.0.0.1:1/realms/evil' })), /wrong issuer/],
      ['a token 120 s past its expiry', () => mintToken(rsa, idp.personClaims(AUDIENCE, { iat: now() - 420, exp: now() - 120 })), /expired/],
      ['a token without exp', () => mintToken(rsa, withoutExpiry(idp.personClaims(AUDIENCE))), /no expiry/],
      ['a token not valid for another 5 minutes', () => mintToken(rsa, idp.personClaims(AUDIENCE, { nbf: now() + 300 })), /not valid before/],
      ['alg none', () => forgeToken({ alg: 'none', typ: 'JWT' }, idp.personClaims(AUDIENCE)), /unsupported algorithm 'none'/],
      [
        'HS256 signed with the public key PEM as HMAC secret',
        () => forgeToken({ alg: 'HS256', typ: 'JWT', kid: rsa.kid }, idp.personClaims(AUDIENCE), hmacWithPublicKey(rsa)),
        /unsupported algorithm 'HS256'/,
      ],
      ['a token signed by a key the issuer does not publish', () => mintToken(stranger, idp.personClaims(AUDIENCE)), /unknown key/],
      ['a forged signature under a published kid', () => mintToken(stranger, idp.personClaims(AUDIENCE), { kid: rsa.kid }), /signature does not verify/],
      ['RS256 under a key whose JWKS entry announces RS512', () => mintToken(announcesRs512, idp.personClaims(AUDIENCE)), /unsupported algorithm 'RS256'.*RS512/],
      ['RS256 under a key whose JWKS entry announces ES256', () => mintToken(announcesEs256, idp.personClaims(AUDIENCE)), /unknown key|unsupported algorithm/],
      ['RS256 under an EC key that announces no algorithm', () => mintToken(rsa, idp.personClaims(AUDIENCE), { kid: ecUnannounced.kid }), /unsupported algorithm 'RS256'.*ec key/],
      ['PS256 under a key announced for RS256', () => mintToken(rsa, idp.personClaims(AUDIENCE), { alg: 'PS256' }), /unsupported algorithm 'PS256'.*RS256/],
      ['something that is not a JWT', () => 'not.a.jwt', /malformed/],
      ['a payload that is not JSON', () => 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb257.AAAA', /malformed/],
      ['characters no bearer token holds', () => 'abc!!!', /malformed/],
    ];

    it.each(cases)('%s', async (_name, token, reason) => {
      const raw = token();
      const response = await me(raw).expect(401);
      expect(response.headers['www-authenticate']).toMatch(CHALLENGE);
      expect(response.headers['www-authenticate']).toMatch(reason);
      expect(response.body.error.code).toBe('invalid_token');
      expect(response.body.error.message).toMatch(reason);
      expect(response.text).not.toContain(raw);
    });
  });

  it('fetches discovery once and keeps known keys cached', async () => {
    await me(mintToken(rsa, idp.personClaims(AUDIENCE))).expect(200);
    const jwksRequests = idp.jwksRequests;
    for (let i = 0; i < 5; i += 1) await me(mintToken(rsa, idp.personClaims(AUDIENCE))).expect(200);
    expect(idp.jwksRequests).toBe(jwksRequests);
    expect(idp.discoveryRequests).toBe(1);
  });

  it('picks up a key that appears in the JWKS after start (rotation)', async () => {
    await me(mintToken(rsa, idp.personClaims(AUDIENCE))).expect(200);
    const rotated = createSigningKey('rsa-2', 'RS256');
    idp.keys = [...idp.keys, rotated];
    const before = idp.jwksRequests;
    await me(mintToken(rotated, idp.personClaims(AUDIENCE))).expect(200);
    expect(idp.jwksRequests).toBe(before + 1);
    await me(mintToken(rsa, idp.personClaims(AUDIENCE))).expect(200);
  });
});

describe('JWKS refetches for unknown keys', () => {
  const idp = new FakeIdentityProvider();
  let app: INestApplication;

  beforeAll(async () => {
    idp.keys = [createSigningKey('rsa-1', 'RS256')];
    await idp.start();
    app = await startAuthTestApp({ issuer: idp.issuer, audience: AUDIENCE, jwksRequestsPerMinute: 3 });
  });

  afterAll(async () => {
    await app?.close();
    await idp.stop();
  });

  it('are not triggered by tokens for another issuer or audience', async () => {
    const foreign = createSigningKey('foreign', 'ES256');
    for (const claims of [idp.personClaims('ai-gateway'), idp.personClaims(AUDIENCE, { iss: 'https://elsewhere.example/realms/x' })]) {
      await request(app.getHttpServer())
        .get('/me')
        .set('Authorization', `Bearer ${mintToken(foreign, claims)}`)
        .expect(401);
    }
    expect(idp.jwksRequests).toBe(0);
  });

  it('happen at most jwksRequestsPerMinute times however many unknown kids arrive', async () => {
    for (let i = 0; i < 8; i += 1) {
      const token = mintToken(createSigningKey(`unknown-${i}`, 'ES256'), idp.personClaims(AUDIENCE));
      const response = await request(app.getHttpServer()).get('/me').set('Authorization', `Bearer ${token}`).expect(401);
      expect(response.body.error.message).toMatch(/unknown key/);
    }
    expect(idp.jwksRequests).toBe(3);
  });
});

describe('an identity provider that is down when the service starts', () => {
  const idp = new FakeIdentityProvider();
  let app: INestApplication | undefined;

  afterAll(async () => {
    await app?.close();
    await idp.stop();
  });

  it('lets the service start, refuses tokens while down, and works once it is up', async () => {
    const port = await freePort();
    const key = createSigningKey('rsa-1', 'RS256');
    idp.keys = [key];
    const issuer = `http://127.0.0.1:${port}/realms/arbor`;

    app = await startAuthTestApp({ issuer, audience: AUDIENCE });
    await request(app.getHttpServer()).get('/public').expect(200);

    // The provider's port is closed, so the claims name an issuer nobody answers for yet.
    const claims = { ...idp.personClaims(AUDIENCE), iss: issuer };
    const down = await request(app.getHttpServer())
      .get('/me')
      .set('Authorization', `Bearer ${mintToken(key, claims)}`)
      .expect(401);
    expect(down.headers['www-authenticate']).toMatch(CHALLENGE);
    expect(down.body.error.message).toMatch(/identity provider.*discovery document could not be read/);

    await idp.start(port);
    await sleep(1_100); // discovery is retried at most once a second
    await request(app.getHttpServer())
      .get('/me')
      .set('Authorization', `Bearer ${mintToken(key, claims)}`)
      .expect(200);
    expect(idp.discoveryRequests).toBe(1);
  });
});

describe('a configured jwksUri', () => {
  const idp = new FakeIdentityProvider();
  let app: INestApplication;

  beforeAll(async () => {
    idp.keys = [createSigningKey('rsa-1', 'RS256')];
    await idp.start();
    app = await startAuthTestApp({ issuer: idp.issuer, audience: AUDIENCE, jwksUri: idp.jwksUri });
  });

  afterAll(async () => {
    await app?.close();
    await idp.stop();
  });

  it('is used without reading the discovery document', async () => {
    const token = mintToken(idp.keys[0], idp.personClaims(AUDIENCE));
    await request(app.getHttpServer()).get('/me').set('Authorization', `Bearer ${token}`).expect(200);
    expect(idp.discoveryRequests).toBe(0);
    expect(idp.jwksRequests).toBe(1);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function withoutExpiry(claims: Record<string, unknown>): Record<string, unknown> {
  const { exp: _exp, ...rest } = claims;
  return rest;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
