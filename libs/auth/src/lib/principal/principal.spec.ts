import { TokenRejected } from '@arbor/contract';
import { principalFromClaims } from './principal';

describe('principalFromClaims', () => {
  it('reads a Keycloak person token', () => {
    const claims = {
      sub: 'user-1',
      azp: 'arbor-control-plane',
      preferred_username: 'alice',
      email: 'alice@example.com',
      name: 'Alice Example',
      realm_access: { roles: ['default-roles-arbor', 42, 'viewer'] },
    };
    expect(principalFromClaims(claims)).toEqual({
      kind: 'person',
      subject: 'user-1',
      email: 'alice@example.com',
      name: 'Alice Example',
      username: 'alice',
      roles: ['default-roles-arbor', 'viewer'],
      clientId: 'arbor-control-plane',
      isAdmin: false,
      claims,
    });
  });

  it('reads a Keycloak client-credentials token as a machine named by its client', () => {
    const principal = principalFromClaims({
      sub: 'a9d5c0de-service-account-uuid',
      azp: 'control-plane-m2m',
      client_id: 'control-plane-m2m',
      preferred_username: 'service-account-control-plane-m2m',
    });
    expect(principal).toMatchObject({ kind: 'machine', subject: 'a9d5c0de-service-account-uuid', clientId: 'control-plane-m2m' });
  });

  it('takes a service-account username alone as a machine, its client from client_id', () => {
    const principal = principalFromClaims({ sub: 'sa-1', preferred_username: 'service-account-ai-gateway-m2m', client_id: 'ai-gateway-m2m' });
    expect(principal).toMatchObject({ kind: 'machine', clientId: 'ai-gateway-m2m' });
  });

  it('takes a token with client_id and no username as a machine, named by its client when it has no sub', () => {
    expect(principalFromClaims({ client_id: 'mcp-gateway-m2m' })).toMatchObject({ kind: 'machine', subject: 'mcp-gateway-m2m', clientId: 'mcp-gateway-m2m' });
  });

  it('keeps a person a person when the issuer puts client_id in every token (RFC 9068)', () => {
    const principal = principalFromClaims({ sub: 'user-2', client_id: 'arbor-control-plane', preferred_username: 'bob' });
    expect(principal).toMatchObject({ kind: 'person', subject: 'user-2', clientId: 'arbor-control-plane' });
  });

  it('marks the realm role control-plane-admin as administrator', () => {
    const principal = principalFromClaims({ sub: 'root', preferred_username: 'root', realm_access: { roles: ['control-plane-admin'] } });
    expect(principal.isAdmin).toBe(true);
  });

  it('refuses a person token without a subject', () => {
    expect(() => principalFromClaims({ preferred_username: 'ghost' })).toThrow(TokenRejected);
  });

  it('cannot be changed by a handler', () => {
    const principal = principalFromClaims({ sub: 'user-3', realm_access: { roles: ['viewer'] } });
    expect(() => (principal.roles as string[]).push('control-plane-admin')).toThrow(TypeError);
    expect(() => ((principal.claims as Record<string, unknown>)['sub'] = 'someone-else')).toThrow(TypeError);
  });
});
