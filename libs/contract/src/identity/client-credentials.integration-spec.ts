// eslint-disable-next-line @nx/enforce-module-boundaries -- test-only: real tokens from the dev identity provider; not part of the package
import { testIssuer } from '@arbor/testing';
import { decodeJwt } from 'jose';
import { ClientCredentials } from './client-credentials';

class ManualClock {
  private time = Date.now();
  now = () => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

describe('client-credentials tokens of control-plane-m2m (real dev identity provider)', () => {
  let calls: string[];
  let fetchSpy: jest.SpyInstance;

  beforeEach(() => {
    calls = [];
    const realFetch = global.fetch;
    fetchSpy = jest.spyOn(global, 'fetch').mockImplementation((input, init) => {
      calls.push(String(input));
      return realFetch(input, init);
    });
  });
  afterEach(() => fetchSpy.mockRestore());

  const tokens = (clock = new ManualClock(), secret = 'dev-control-plane-m2m-secret', issuerUrl = testIssuer()) =>
    new ClientCredentials({ issuer: issuerUrl, clientId: 'control-plane-m2m', clientSecret: secret, now: clock.now, timeoutMs: 5000 });

  it('finds the token endpoint by discovery and gets a token for every product it syncs to', async () => {
    const token = await tokens().get();
    expect(decodeJwt(token)).toMatchObject({ iss: testIssuer(), azp: 'control-plane-m2m', aud: ['ai-gateway', 'mcp-gateway'] });
    expect(calls).toEqual([`${testIssuer()}/.well-known/openid-configuration`, `${testIssuer()}/protocol/openid-connect/token`]);
  });

  it('keeps the token until shortly before it expires, with one request for concurrent callers', async () => {
    const clock = new ManualClock();
    const source = tokens(clock);
    const [a, b] = await Promise.all([source.get(), source.get()]);
    expect(a).toBe(b);
    clock.advance(269_000);
    expect(await source.get()).toBe(a);
    expect(calls).toHaveLength(2);
    // The dev-idp's tokens live 300 s; the last 30 s are not used.
    clock.advance(1_000);
    const renewed = await source.get();
    expect(renewed).not.toBe(a);
    expect(calls).toHaveLength(3);
  });

  it('gets a new token after a product refused the cached one', async () => {
    const source = tokens();
    const refused = await source.get();
    source.invalidate('some older token');
    expect(await source.get()).toBe(refused);
    source.invalidate(refused);
    expect(await source.get()).not.toBe(refused);
  });

  it('authenticates with HTTP Basic, the one client authentication of the suite', async () => {
    const sent: RequestInit[] = [];
    const realFetch = global.fetch;
    const source = new ClientCredentials({
      issuer: testIssuer(),
      clientId: 'control-plane-m2m',
      clientSecret: 'dev-control-plane-m2m-secret',
      fetch: (input, init) => (sent.push(init ?? {}), realFetch(input, init)),
    });
    await source.get();
    const tokenRequest = sent.find((init) => init.method === 'POST')!;
    expect(new Headers(tokenRequest.headers).get('authorization')).toBe(`Basic ${Buffer.from('control-plane-m2m:dev-control-plane-m2m-secret').toString('base64')}`);
    expect(String(tokenRequest.body)).toBe('grant_type=client_credentials');
  });

  it('says why there is no token, without the secret, and tries discovery again later', async () => {
    await expect(tokens(undefined, 'wrong-secret').get()).rejects.toThrow(/answered 401 invalid_client/);
    await expect(tokens(undefined, 'wrong-secret').get()).rejects.not.toThrow(/wrong-secret/);

    const unreachable = tokens(undefined, undefined, 'http://127.0.0.1:9/realms/arbor');
    await expect(unreachable.get()).rejects.toThrow();
    await expect(unreachable.get()).rejects.toThrow();
    expect(calls.filter((url) => url.includes('127.0.0.1:9/'))).toHaveLength(2);
  });
});
