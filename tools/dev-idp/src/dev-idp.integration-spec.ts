// The dev IdP as its users meet it: a child process (`node tools/dev-idp/src/main.ts`) spoken to
// over HTTP. Jest runs specs as CommonJS and cannot load the ESM sources, so nothing is imported.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createPublicKey, randomBytes, verify, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import jsonwebtoken from 'jsonwebtoken';

const root = path.resolve(__dirname, '../../..');
const realm = JSON.parse(readFileSync(path.join(root, 'deploy/keycloak/realm-export.json'), 'utf8')) as {
  users: { id: string; username: string }[];
};
const userId = (username: string) => realm.users.find((user) => user.username === username)!.id;

type Claims = Record<string, unknown>;

interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
}

async function json<T = Claims>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

interface RunningIdp {
  child: ChildProcess;
  issuer: string;
}

function startIdp(env: Record<string, string> = {}): Promise<RunningIdp> {
  const child = spawn(process.execPath, [path.join(root, 'tools/dev-idp/src/main.ts')], {
    cwd: root,
    env: { ...process.env, DEV_IDP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('no ready line within 15 s')), 15000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}; output:\n${output}`));
    };
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /^dev-idp ready at (\S+)$/m.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve({ child, issuer: ready[1]! });
      }
    });
    child.once('exit', (code) => fail(new Error(`dev-idp exited with ${code}`)));
  });
}

function stopIdp(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

function decodeJwt(token: string): { header: Claims; payload: Claims } {
  const [header, payload] = token.split('.');
  const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Claims;
  return { header: json(header!), payload: json(payload!) };
}

let idp: RunningIdp;
let endpoints: { token_endpoint: string; authorization_endpoint: string; jwks_uri: string; userinfo_endpoint: string; end_session_endpoint: string };

beforeAll(async () => {
  idp = await startIdp();
  endpoints = await json(await fetch(`${idp.issuer}/.well-known/openid-configuration`));
});

afterAll(async () => {
  if (idp) await stopIdp(idp.child);
});

function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(endpoints.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
}

async function passwordGrant(username: string, password = username): Promise<TokenResponse> {
  const response = await tokenRequest({ grant_type: 'password', client_id: 'dev-cli', username, password, scope: 'openid' });
  expect(response.status).toBe(200);
  return json<TokenResponse>(response);
}

function basic(clientId: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
}

describe('discovery', () => {
  it('publishes Keycloak-shaped endpoints under the issuer', async () => {
    const response = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const document = await json(response);
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/realms\/arbor$/);
    expect(document).toMatchObject({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.issuer}/protocol/openid-connect/auth`,
      token_endpoint: `${idp.issuer}/protocol/openid-connect/token`,
      jwks_uri: `${idp.issuer}/protocol/openid-connect/certs`,
      userinfo_endpoint: `${idp.issuer}/protocol/openid-connect/userinfo`,
      end_session_endpoint: `${idp.issuer}/protocol/openid-connect/logout`,
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(document.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials', 'password', 'refresh_token']));
  });

  it('answers 404 outside the issuer path', async () => {
    expect((await fetch(new URL('/realms/other/.well-known/openid-configuration', idp.issuer))).status).toBe(404);
  });
});

describe('password grant (dev-cli)', () => {
  it("gives alice a Keycloak-shaped person's token for every product", async () => {
    const body = await passwordGrant('alice');
    expect(body.expires_in).toBe(300);
    const { header, payload } = decodeJwt(body.access_token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: expect.any(String) });
    expect(payload).toMatchObject({
      iss: idp.issuer,
      sub: userId('alice'),
      aud: ['control-plane', 'ai-gateway', 'mcp-gateway'],
      azp: 'dev-cli',
      typ: 'Bearer',
      scope: 'openid profile email',
      email: 'alice@arbor.local',
      email_verified: true,
      preferred_username: 'alice',
      name: 'Alice Anderson',
      given_name: 'Alice',
      family_name: 'Anderson',
      jti: expect.any(String),
    });
    expect((payload['exp'] as number) - (payload['iat'] as number)).toBe(300);
    expect(payload['client_id']).toBeUndefined();
    const roles = (payload['realm_access'] as { roles: string[] }).roles;
    expect(roles).toEqual(expect.arrayContaining(['default-roles-arbor', 'offline_access', 'uma_authorization']));
    expect(roles).not.toContain('control-plane-admin');
  });

  it('gives admin the control-plane-admin realm role', async () => {
    const { payload } = decodeJwt((await passwordGrant('admin')).access_token);
    expect(payload['sub']).toBe(userId('admin'));
    expect((payload['realm_access'] as { roles: string[] }).roles).toContain('control-plane-admin');
  });

  it('issues an ID token for the client when openid is asked for', async () => {
    const { payload } = decodeJwt((await passwordGrant('bob')).id_token!);
    expect(payload).toMatchObject({ iss: idp.issuer, aud: 'dev-cli', sub: userId('bob'), email: 'bob@arbor.local', at_hash: expect.any(String) });
    expect((payload['exp'] as number) - (payload['iat'] as number)).toBe(300);
  });

  it('refuses a wrong password or an unknown user with invalid_grant', async () => {
    for (const [username, password] of [
      ['alice', 'bob'],
      ['mallory', 'mallory'],
    ]) {
      const response = await tokenRequest({ grant_type: 'password', client_id: 'dev-cli', username: username!, password: password! });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    }
  });

  it('refuses the password grant to a client without direct access grants', async () => {
    const response = await tokenRequest({ grant_type: 'password', username: 'alice', password: 'alice' }, basic('control-plane-m2m', 'dev-control-plane-m2m-secret'));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('client credentials', () => {
  it("gives control-plane-m2m its service account's token for both products", async () => {
    const response = await tokenRequest({ grant_type: 'client_credentials' }, basic('control-plane-m2m', 'dev-control-plane-m2m-secret'));
    expect(response.status).toBe(200);
    const body = await json<TokenResponse>(response);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300 });
    const { payload } = decodeJwt(body.access_token);
    const serviceAccount = realm.users.find((user) => user.username === 'service-account-control-plane-m2m')!;
    expect(payload).toMatchObject({
      iss: idp.issuer,
      aud: ['ai-gateway', 'mcp-gateway'],
      sub: serviceAccount.id,
      azp: 'control-plane-m2m',
      client_id: 'control-plane-m2m',
      preferred_username: 'service-account-control-plane-m2m',
      realm_access: { roles: expect.arrayContaining(['default-roles-arbor']) },
    });
    expect(payload['email']).toBeUndefined();
  });

  it('gives ai-gateway-m2m a token for the control plane (secret in the body)', async () => {
    const response = await tokenRequest({ grant_type: 'client_credentials', client_id: 'ai-gateway-m2m', client_secret: 'dev-ai-gateway-m2m-secret' });
    expect(response.status).toBe(200);
    const { payload } = decodeJwt((await json<TokenResponse>(response)).access_token);
    expect(payload).toMatchObject({ aud: 'control-plane', azp: 'ai-gateway-m2m', preferred_username: 'service-account-ai-gateway-m2m' });
  });

  it('refuses a wrong client secret with 401 invalid_client', async () => {
    const response = await tokenRequest({ grant_type: 'client_credentials' }, basic('control-plane-m2m', 'wrong'));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('token exchange (RFC 8693, as Keycloak standard token exchange)', () => {
  const exchange = (subjectToken: string, audience: string, client: [string, string] = ['mcp-gateway', 'dev-mcp-gateway-secret']) =>
    tokenRequest(
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        audience,
      },
      basic(...client),
    );

  it("exchanges alice's token for the MCP gateway for one naming her, whose audience is the tool server", async () => {
    const alice = await passwordGrant('alice');
    const response = await exchange(alice.access_token, 'arbor-tool-server');
    expect(response.status).toBe(200);
    const body = await json<TokenResponse & { issued_token_type: string }>(response);
    expect(body).toMatchObject({ token_type: 'Bearer', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', expires_in: 300 });
    const { payload } = decodeJwt(body.access_token);
    expect(payload).toMatchObject({ iss: idp.issuer, sub: userId('alice'), aud: 'arbor-tool-server', azp: 'mcp-gateway', preferred_username: 'alice' });
  });

  it('refuses an audience the client has no audience mapper for, a token not for the client, a forged token, and clients without the switch', async () => {
    const alice = await passwordGrant('alice');
    const wrongAudience = await exchange(alice.access_token, 'control-plane');
    expect(wrongAudience.status).toBe(400);
    expect(await wrongAudience.json()).toMatchObject({ error: 'invalid_target' });

    const forMachines = await json<TokenResponse>(await tokenRequest({ grant_type: 'client_credentials' }, basic('ai-gateway-m2m', 'dev-ai-gateway-m2m-secret')));
    const notForClient = await exchange(forMachines.access_token, 'arbor-tool-server');
    expect(notForClient.status).toBe(400);
    expect(await notForClient.json()).toMatchObject({ error: 'access_denied', error_description: 'Client is not within the token audience' });

    const forged = await exchange(`${alice.access_token.slice(0, -8)}AAAAAAAA`, 'arbor-tool-server');
    expect(await forged.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/subject token is not valid/) });

    const withoutSwitch = await exchange(alice.access_token, 'arbor-tool-server', ['mcp-gateway-m2m', 'dev-mcp-gateway-m2m-secret']);
    expect(withoutSwitch.status).toBe(400);
    expect(await withoutSwitch.json()).toMatchObject({ error_description: 'requested grant type is not allowed for this client' });
  });
});

describe('signatures', () => {
  async function signingKey(kid: string): Promise<JsonWebKey> {
    const { keys } = await json<{ keys: (JsonWebKey & { kid: string })[] }>(await fetch(endpoints.jwks_uri));
    const jwk = keys.find((key) => key.kid === kid);
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwk).not.toHaveProperty('d');
    return jwk!;
  }

  it('verifies against the published JWKS', async () => {
    const token = (await passwordGrant('carol')).access_token;
    const [header, payload, signature] = token.split('.');
    const key = createPublicKey({ key: await signingKey(decodeJwt(token).header['kid'] as string), format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature!, 'base64url'))).toBe(true);
    const tampered = Buffer.from(JSON.stringify({ ...decodeJwt(token).payload, sub: userId('admin') })).toString('base64url');
    expect(verify('sha256', Buffer.from(`${header}.${tampered}`), key, Buffer.from(signature!, 'base64url'))).toBe(false);
  });

  it('passes the checks passport-jwt makes (jsonwebtoken: issuer, audience, algorithm)', async () => {
    const token = (await passwordGrant('carol')).access_token;
    const key = createPublicKey({ key: await signingKey(decodeJwt(token).header['kid'] as string), format: 'jwk' });
    const options = { algorithms: ['RS256' as const], issuer: idp.issuer };
    expect(jsonwebtoken.verify(token, key, { ...options, audience: 'mcp-gateway' })).toMatchObject({ preferred_username: 'carol' });
    expect(() => jsonwebtoken.verify(token, key, { ...options, audience: 'somebody-else' })).toThrow(/audience invalid/);
  });
});

describe('authorization code with PKCE (arbor-control-plane)', () => {
  const redirectUri = 'http://localhost:8080/auth/callback';

  /** A browser's cookie jar for the IdP's one host: cookies keyed by name and path, sent by path. */
  class Browser {
    private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

    /** Every cookie set so far, as `name@path`. */
    cookieNames(): string[] {
      return [...this.cookies.values()].map((cookie) => `${cookie.name}@${cookie.path}`);
    }

    async request(url: string, init: RequestInit = {}): Promise<Response> {
      const { pathname } = new URL(url);
      const cookie = [...this.cookies.values()]
        .filter((candidate) => pathname === candidate.path || pathname.startsWith(candidate.path.endsWith('/') ? candidate.path : `${candidate.path}/`))
        .map((candidate) => `${candidate.name}=${candidate.value}`)
        .join('; ');
      const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie } });
      for (const header of response.headers.getSetCookie()) {
        const [pair, ...attributes] = header.split(';').map((part) => part.trim());
        const separator = pair!.indexOf('=');
        const name = pair!.slice(0, separator);
        const value = pair!.slice(separator + 1);
        const path = attributes.find((attribute) => attribute.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
        if (value === '' || /expires=Thu, 01 Jan 1970/i.test(header)) this.cookies.delete(`${name}@${path}`);
        else this.cookies.set(`${name}@${path}`, { name, value, path });
      }
      return response;
    }

    /** Follows redirects until one leaves the IdP; returns that location. */
    async followUntil(response: Response, from: string, prefix: string): Promise<URL> {
      let location = new URL(response.headers.get('location')!, from);
      while (!location.href.startsWith(prefix)) {
        const next = await this.request(location.href);
        expect([302, 303]).toContain(next.status);
        location = new URL(next.headers.get('location')!, location);
      }
      return location;
    }
  }

  function authorizationUrl(params: Record<string, string>): string {
    const url = new URL(endpoints.authorization_endpoint);
    const defaults = { client_id: 'arbor-control-plane', response_type: 'code', redirect_uri: redirectUri, scope: 'openid profile email', state: 'st4te' };
    for (const [name, value] of Object.entries({ ...defaults, ...params })) url.searchParams.set(name, value);
    return url.href;
  }

  function pkce(): { verifier: string; challenge: string } {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  it('signs carol in through the login form and exchanges the code for her tokens', async () => {
    const browser = new Browser();
    const { verifier, challenge } = pkce();

    const authorize = await browser.request(authorizationUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(authorize.status).toBe(303);
    const loginUrl = new URL(authorize.headers.get('location')!, endpoints.authorization_endpoint).href;
    expect(loginUrl).toMatch(/\/realms\/arbor\/login-actions\/[\w-]+$/);

    const form = await browser.request(loginUrl);
    expect(form.status).toBe(200);
    expect(await form.text()).toMatch(/<input id="username" name="username"/);

    const wrong = await browser.request(loginUrl, { method: 'POST', body: new URLSearchParams({ username: 'carol', password: 'alice' }) });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Invalid username or password.');

    const signedIn = await browser.request(loginUrl, { method: 'POST', body: new URLSearchParams({ username: 'carol', password: 'carol' }) });
    expect(signedIn.status).toBe(303);
    const callback = await browser.followUntil(signedIn, loginUrl, redirectUri);
    // Cookies stay under the issuer's path: localhost cookies reach every port, the applications' too.
    expect(browser.cookieNames().every((cookie) => cookie.includes('@/realms/arbor'))).toBe(true);
    expect(browser.cookieNames()).toContain('dev_idp_session@/realms/arbor');
    expect(callback.searchParams.get('state')).toBe('st4te');
    expect(callback.searchParams.get('iss')).toBe(idp.issuer);
    const code = callback.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const exchange = { grant_type: 'authorization_code', client_id: 'arbor-control-plane', redirect_uri: redirectUri, code };
    const tokens = await tokenRequest({ ...exchange, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    const body = await json<TokenResponse>(tokens);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300, refresh_token: expect.any(String), id_token: expect.any(String) });
    expect(decodeJwt(body.access_token).payload).toMatchObject({
      iss: idp.issuer,
      sub: userId('carol'),
      aud: ['control-plane', 'ai-gateway', 'mcp-gateway'],
      azp: 'arbor-control-plane',
      email: 'carol@arbor.local',
      preferred_username: 'carol',
      realm_access: { roles: expect.arrayContaining(['default-roles-arbor']) },
    });
    expect(decodeJwt(body.id_token!).payload).toMatchObject({ aud: 'arbor-control-plane', sub: userId('carol'), name: 'Carol Clark' });

    const refreshed = await tokenRequest({ grant_type: 'refresh_token', client_id: 'arbor-control-plane', refresh_token: body.refresh_token! });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt((await json<TokenResponse>(refreshed)).access_token).payload).toMatchObject({ sub: userId('carol'), aud: ['control-plane', 'ai-gateway', 'mcp-gateway'] });

    const userinfo = await fetch(endpoints.userinfo_endpoint, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual({
      sub: userId('carol'),
      email: 'carol@arbor.local',
      email_verified: true,
      name: 'Carol Clark',
      preferred_username: 'carol',
      given_name: 'Carol',
      family_name: 'Clark',
    });
  });

  /** The whole browser sign-in; returns the tokens. */
  async function signIn(browser: Browser, username: string): Promise<TokenResponse> {
    const { verifier, challenge } = pkce();
    const authorize = await browser.request(authorizationUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    const loginUrl = new URL(authorize.headers.get('location')!, endpoints.authorization_endpoint).href;
    const signedIn = await browser.request(loginUrl, { method: 'POST', body: new URLSearchParams({ username, password: username }) });
    const callback = await browser.followUntil(signedIn, loginUrl, redirectUri);
    const tokens = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: 'arbor-control-plane',
      redirect_uri: redirectUri,
      code: callback.searchParams.get('code')!,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    return json<TokenResponse>(tokens);
  }

  it('signs a signed-in browser in again without the form, and checks the code verifier', async () => {
    const browser = new Browser();
    await signIn(browser, 'bob');
    const again = await browser.request(authorizationUrl({ code_challenge: pkce().challenge, code_challenge_method: 'S256' }));
    const callback = await browser.followUntil(again, endpoints.authorization_endpoint, redirectUri);
    const exchange = { grant_type: 'authorization_code', client_id: 'arbor-control-plane', redirect_uri: redirectUri, code: callback.searchParams.get('code')! };

    const wrongVerifier = await tokenRequest({ ...exchange, code_verifier: pkce().verifier });
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('signs out through the logout endpoint and back to the application', async () => {
    const browser = new Browser();
    const { id_token } = await signIn(browser, 'alice');
    const signedOutUri = 'http://localhost:8080/signed-out';
    const logoutUrl = new URL(endpoints.end_session_endpoint);
    logoutUrl.searchParams.set('id_token_hint', id_token!);
    logoutUrl.searchParams.set('post_logout_redirect_uri', signedOutUri);

    const confirmPage = await browser.request(logoutUrl.href);
    expect(confirmPage.status).toBe(200);
    const html = await confirmPage.text();
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)">/.exec(html)![1]!;
    const fields = new URLSearchParams([...html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((match): [string, string] => [match[1]!, match[2]!]));
    expect(fields.get('logout')).toBe('yes');

    const confirmed = await browser.request(action, { method: 'POST', body: fields });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(signedOutUri);

    const { challenge } = pkce();
    const again = await browser.request(authorizationUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(again.headers.get('location')).toMatch(/\/login-actions\//);
  });

  it('requires PKCE of the public client', async () => {
    const response = await new Browser().request(authorizationUrl({}));
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.href.startsWith(redirectUri)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a redirect URI outside the registered pattern without redirecting', async () => {
    const { challenge } = pkce();
    const response = await new Browser().request(
      authorizationUrl({ redirect_uri: 'http://localhost:8081/auth/callback', code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });
});

describe('userinfo', () => {
  it('refuses a token it did not sign', async () => {
    const token = (await passwordGrant('alice')).access_token;
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${Buffer.from('forged').toString('base64url')}`;
    const response = await fetch(endpoints.userinfo_endpoint, { headers: { authorization: `Bearer ${forged}` } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });
});

describe('process', () => {
  it('stops cleanly on SIGTERM', async () => {
    const second = await startIdp();
    expect(await stopIdp(second.child)).toBe(0);
  });
});

describe('the signing key across restarts', () => {
  it('keeps the key in DEV_IDP_KEY_FILE, so a token from before a restart still verifies after it', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'dev-idp-key-'));
    const keyFile = path.join(folder, 'signing-key.json');
    const jwks = async (issuer: string) => json<{ keys: { kid: string; n: string }[] }>(await fetch(`${issuer}/protocol/openid-connect/certs`));
    try {
      const first = await startIdp({ DEV_IDP_KEY_FILE: keyFile });
      const discovery = await json<{ token_endpoint: string }>(await fetch(`${first.issuer}/.well-known/openid-configuration`));
      const issued = await json<TokenResponse>(
        await fetch(discovery.token_endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'password', client_id: 'dev-cli', username: 'alice', password: 'alice', scope: 'openid' }),
        }),
      );
      const before = await jwks(first.issuer);
      await stopIdp(first.child);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);

      const second = await startIdp({ DEV_IDP_KEY_FILE: keyFile });
      const after = await jwks(second.issuer);
      await stopIdp(second.child);
      expect(after.keys).toEqual(before.keys);
      const { header } = decodeJwt(issued.access_token);
      const key = after.keys.find((candidate) => candidate.kid === header['kid'])!;
      const [head, body, signature] = issued.access_token.split('.');
      const publicKey = createPublicKey({ key: key as unknown as JsonWebKey, format: 'jwk' });
      expect(verify('RSA-SHA256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('makes a new key at every start without it', async () => {
    const first = await startIdp();
    const second = await startIdp();
    const kids = await Promise.all(
      [first, second].map(async ({ issuer }) => (await json<{ keys: { kid: string }[] }>(await fetch(`${issuer}/protocol/openid-connect/certs`))).keys[0]!.kid),
    );
    await Promise.all([stopIdp(first.child), stopIdp(second.child)]);
    expect(kids[0]).not.toBe(kids[1]);
  });
});
