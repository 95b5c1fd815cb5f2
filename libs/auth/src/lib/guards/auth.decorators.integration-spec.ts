import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ADMIN_RESOLVER, AdminResolver } from '../principal/admin-resolver';
import { startAuthTestApp } from '../testing/auth-test-app';
import { createSigningKey, FakeIdentityProvider, mintToken, TestSigningKey } from '../testing/fake-identity-provider';
import { AuthModule } from '../auth.module';

const AUDIENCE = 'control-plane';

describe('route guards', () => {
  const idp = new FakeIdentityProvider();
  let key: TestSigningKey;
  let app: INestApplication;
  const adminResolver: AdminResolver = { isAdmin: (principal) => principal.subject === 'granted-in-control-plane' };

  beforeAll(async () => {
    key = createSigningKey('rsa-1', 'RS256');
    idp.keys = [key];
    await idp.start();
    app = await startAuthTestApp({ issuer: idp.issuer, audience: AUDIENCE }, [{ provide: ADMIN_RESOLVER, useValue: adminResolver }]);
  });

  afterAll(async () => {
    await app?.close();
    await idp.stop();
  });

  const call = (path: string, claims: Record<string, unknown>) =>
    request(app.getHttpServer())
      .get(path)
      .set('Authorization', `Bearer ${mintToken(key, claims)}`);
  const person = (overrides: Record<string, unknown> = {}) => idp.personClaims(AUDIENCE, overrides);
  const withRoles = (...roles: string[]) => person({ realm_access: { roles } });

  it('reads a client-credentials token as a machine with its client id', async () => {
    const response = await call('/me', idp.machineClaims(AUDIENCE, 'control-plane-m2m')).expect(200);
    expect(response.body).toMatchObject({ kind: 'machine', clientId: 'control-plane-m2m', username: 'service-account-control-plane-m2m', isAdmin: false });
  });

  describe('@MachineOrAdmin()', () => {
    it('lets a machine client in', async () => {
      await call('/ops', idp.machineClaims(AUDIENCE, 'control-plane-m2m')).expect(200);
    });

    it('lets an administrator by realm role in', async () => {
      const me = await call('/me', withRoles('control-plane-admin')).expect(200);
      expect(me.body.isAdmin).toBe(true);
      await call('/ops', withRoles('control-plane-admin')).expect(200);
    });

    it('lets an administrator granted by the ADMIN_RESOLVER in', async () => {
      const me = await call('/me', person({ sub: 'granted-in-control-plane' })).expect(200);
      expect(me.body).toMatchObject({ kind: 'person', isAdmin: true, roles: ['default-roles-arbor'] });
      await call('/ops', person({ sub: 'granted-in-control-plane' })).expect(200);
    });

    it('answers a plain person 403 forbidden', async () => {
      const response = await call('/ops', person()).expect(403);
      expect(response.body.error.code).toBe('forbidden');
      expect(response.body.error.message).toMatch(/machine clients and administrators/);
      expect(response.headers['www-authenticate']).toBeUndefined();
    });

    it('answers 401 before 403 when the token is missing', async () => {
      const response = await request(app.getHttpServer()).get('/ops').expect(401);
      expect(response.body.error.code).toBe('missing_token');
    });
  });

  it('without an ADMIN_RESOLVER takes only the realm role for an administrator', async () => {
    const bare = await startAuthTestApp({ issuer: idp.issuer, audience: AUDIENCE });
    try {
      await request(bare.getHttpServer())
        .get('/ops')
        .set('Authorization', `Bearer ${mintToken(key, person({ sub: 'granted-in-control-plane' }))}`)
        .expect(403);
    } finally {
      await bare.close();
    }
  });

  it('keeps two apps in one process to their own audience', async () => {
    const gateway = await startAuthTestApp({ issuer: idp.issuer, audience: 'ai-gateway' });
    try {
      const forGateway = mintToken(key, idp.personClaims('ai-gateway'));
      const forControlPlane = mintToken(key, idp.personClaims(AUDIENCE));
      await request(gateway.getHttpServer()).get('/me').set('Authorization', `Bearer ${forGateway}`).expect(200);
      await request(gateway.getHttpServer()).get('/me').set('Authorization', `Bearer ${forControlPlane}`).expect(401);
      await request(app.getHttpServer()).get('/me').set('Authorization', `Bearer ${forControlPlane}`).expect(200);
      await request(app.getHttpServer()).get('/me').set('Authorization', `Bearer ${forGateway}`).expect(401);
    } finally {
      await gateway.close();
    }
  });
});

describe('AuthModule.forRoot', () => {
  it('refuses options that cannot work, naming each', () => {
    expect(() => AuthModule.forRoot({ issuer: 'sso.example.com', audience: ' ', jwksRequestsPerMinute: 0 })).toThrow(
      /issuer must be an http\(s\) URL.*audience must be a non-empty string.*jwksRequestsPerMinute must be a positive integer/,
    );
  });
});
