// The token exchange as the gateway makes it, against the real dev identity provider (which
// serves RFC 8693 as Keycloak's standard token exchange does).
import { personToken, testIssuer } from '@arbor/testing';
import { CredentialsUnavailable } from './credentials.exception';
import { TokenExchangeCredentials } from './token-exchange';
import type { PerCallerUpstream } from './upstream-credentials';

const internal: PerCallerUpstream = { name: 'internal', url: 'http://tools.internal/mcp', auth: { type: 'token_exchange', audience: 'arbor-tool-server' } };
const claimsOf = (headers: Record<string, string>) => JSON.parse(Buffer.from(headers['authorization']!.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

async function refusal(promise: Promise<unknown>): Promise<CredentialsUnavailable> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CredentialsUnavailable);
  return error as CredentialsUnavailable;
}

describe('token exchange credentials', () => {
  const credentials = new TokenExchangeCredentials({ issuer: testIssuer(), clientId: 'mcp-gateway', clientSecret: 'dev-mcp-gateway-secret' });

  it("gives a person's call a token of that person for the upstream's audience, and reuses it until shortly before it expires", async () => {
    const token = await personToken('alice');
    const subject = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub as string;
    const headers = await credentials.headersFor(internal, { kind: 'person', principal: subject, token });
    expect(claimsOf(headers)).toMatchObject({ sub: subject, aud: 'arbor-tool-server', azp: 'mcp-gateway', preferred_username: 'alice' });
    expect(headers['authorization']).not.toContain(token);
    // Signed in again: the same person's exchanged token still serves.
    expect(await credentials.headersFor(internal, { kind: 'person', principal: subject, token: await personToken('alice') })).toEqual(headers);
  });

  it('refuses, naming why, a caller that is no person, a token the identity provider does not accept, and an audience it does not allow', async () => {
    expect(await refusal(credentials.headersFor(internal, { kind: 'machine', principal: 'key:1' }))).toMatchObject({ code: 'person_required', upstream: 'internal' });

    const bob = await personToken('bob');
    const forged = await refusal(credentials.headersFor(internal, { kind: 'person', principal: 'bob', token: `${bob.slice(0, -8)}AAAAAAAA` }));
    expect(forged).toMatchObject({ code: 'token_exchange_failed' });
    expect(forged.message).toBe(
      'Your sign-in could not be exchanged for upstream "internal": the identity provider answered invalid_request (Invalid token: the subject token is not valid)',
    );

    const elsewhere = await refusal(
      credentials.headersFor({ ...internal, auth: { type: 'token_exchange', audience: 'control-plane' } }, { kind: 'person', principal: 'bob', token: bob }),
    );
    expect(elsewhere.message).toMatch(/answered invalid_target \(Requested audience not available: control-plane\)/);
  });

  it('refuses when the gateway has no client at the identity provider, or a wrong secret', async () => {
    const token = await personToken('carol');
    const unconfigured = new TokenExchangeCredentials(undefined);
    expect(await refusal(unconfigured.headersFor(internal, { kind: 'person', principal: 'carol', token }))).toMatchObject({ code: 'token_exchange_not_configured' });
    const wrongSecret = new TokenExchangeCredentials({ issuer: testIssuer(), clientId: 'mcp-gateway', clientSecret: 'wrong' });
    expect((await refusal(wrongSecret.headersFor(internal, { kind: 'person', principal: 'carol', token }))).message).toMatch(/refused the gateway's client \(HTTP 401\)/);
  });
});
