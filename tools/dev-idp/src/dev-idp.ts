import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Provider, { errors, type Client, type Configuration } from 'oidc-provider';
import { sendJson } from './http.ts';
import { createLoginHandler } from './login.ts';
import { createMemoryAdapter } from './memory-adapter.ts';
import { errorPage, logoutPage, signedOutPage } from './pages.ts';
import { loadRealm, uriMatches, type Realm } from './realm.ts';
import { ACCESS_TOKEN_RESOURCE, SUPPORTED_SCOPES, customizeAccessToken, passwordGrant, personClaims, resourceServerInfo } from './tokens.ts';
import { TOKEN_EXCHANGE_GRANT, TOKEN_EXCHANGE_PARAMETERS, tokenExchangeGrant } from './token-exchange.ts';
import { createUserinfoHandler } from './userinfo.ts';

export interface DevIdpOptions {
  /** Default 8090; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default `http://localhost:<port>/realms/<realm>` (`http://127.0.0.1:…` when port is 0). */
  issuer?: string;
  /** Default `deploy/keycloak/realm-export.json` of this repository. */
  realmFile?: string;
  /**
   * Where the signing key is kept (created on first start, mode 0600): tokens issued before a
   * restart still verify after it. Without it, a new key at every start.
   */
  signingKeyFile?: string;
}

export interface DevIdp {
  issuer: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_REALM_FILE = path.resolve(import.meta.dirname, '../../../deploy/keycloak/realm-export.json');

/** Keycloak's endpoint paths under the issuer, so that clients configured for Keycloak work unchanged. */
const ROUTES = {
  authorization: '/protocol/openid-connect/auth',
  token: '/protocol/openid-connect/token',
  jwks: '/protocol/openid-connect/certs',
  userinfo: '/protocol/openid-connect/userinfo',
  end_session: '/protocol/openid-connect/logout',
  revocation: '/protocol/openid-connect/revoke',
};
const LOGIN_ACTIONS = '/login-actions/';

function loginActionsPath(basePath: string, uid: string): string {
  return `${basePath}${LOGIN_ACTIONS}${uid}`;
}

/** A local OpenID Provider serving the clients, users and realm roles of a Keycloak realm export. */
export async function startDevIdp(options: DevIdpOptions = {}): Promise<DevIdp> {
  const realm = loadRealm(path.resolve(options.realmFile ?? DEFAULT_REALM_FILE));
  const requestedPort = options.port ?? 8090;
  const server = createServer();
  const port = await listen(server, requestedPort, options.host ?? '127.0.0.1');
  try {
    // A free port is only known to be free on 127.0.0.1; "localhost" could resolve to ::1 first.
    const issuer = options.issuer ?? `http://${requestedPort === 0 ? '127.0.0.1' : 'localhost'}:${port}/realms/${realm.name}`;
    server.on('request', createRequestHandler(issuer, realm, signingKey(options.signingKeyFile)));
    return { issuer, port, close: () => close(server) };
  } catch (error) {
    await close(server);
    throw error;
  }
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** The key of `file` when it exists, else a new one (kept in `file` when given). */
function signingKey(file: string | undefined): SigningKey {
  if (file && existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { kid: string; jwk: JsonWebKey };
    const privateKey = createPrivateKey({ key: stored.jwk, format: 'jwk' });
    return { kid: stored.kid, privateKey, publicKey: createPublicKey(privateKey) };
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(16).toString('base64url');
  if (file) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ kid, jwk: privateKey.export({ format: 'jwk' }) }), { mode: 0o600 });
  }
  return { kid, privateKey, publicKey };
}

function createRequestHandler(issuer: string, realm: Realm, key: SigningKey) {
  const basePath = new URL(issuer).pathname.replace(/\/$/, '');
  const { kid, privateKey, publicKey } = key;
  const signingKey: JsonWebKey = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };

  const provider = new Provider(issuer, providerConfiguration(realm, basePath, signingKey));
  provider.registerGrantType('password', passwordGrant(realm), ['username', 'password', 'scope']);
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, tokenExchangeGrant(realm, issuer, publicKey), TOKEN_EXCHANGE_PARAMETERS);
  // Keycloak's redirect URIs may end in a wildcard ("http://localhost:8080/*"); oidc-provider's match exactly.
  // Matched against the realm's own list: "http://127.0.0.1:*" (any loopback port, for MCP clients) is no URI to oidc-provider.
  provider.Client.prototype.redirectUriAllowed = function (this: Client, uri: string) {
    return uriMatches(realm.client(this.clientId).redirectUris, uri);
  };
  provider.Client.prototype.postLogoutRedirectUriAllowed = function (this: Client, uri: string) {
    return uriMatches(this.postLogoutRedirectUris, uri);
  };
  provider.on('server_error', (_ctx, error) => console.error('dev-idp: server error:', error));

  const providerCallback = provider.callback();
  const login = createLoginHandler(provider, realm, (uid) => loginActionsPath(basePath, uid));
  const userinfo = createUserinfoHandler({
    issuer,
    signingKey: { kid, publicKey },
    allowedOrigins: new Set([...realm.clients.values()].flatMap((client) => client.webOrigins)),
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { pathname } = new URL(req.url ?? '/', 'http://dev-idp');
    if (pathname !== basePath && !pathname.startsWith(`${basePath}/`)) {
      return sendJson(res, 404, { error: 'not_found', error_description: `this server serves ${issuer}` });
    }
    const route = pathname.slice(basePath.length);
    if (route.startsWith(LOGIN_ACTIONS)) return login(req, res, route.slice(LOGIN_ACTIONS.length));
    if (route === ROUTES.userinfo) return userinfo(req, res);
    // Mounted under the issuer's path: oidc-provider matches routes without it and builds its
    // URLs from req.originalUrl, as when mounted in Express.
    const url = req.url ?? '/';
    Object.assign(req, { originalUrl: url, url: url.slice(basePath.length) || '/' });
    return providerCallback(req, res);
  };

  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      console.error('dev-idp: request failed:', error);
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: 'server_error' });
    });
  };
}

function providerConfiguration(realm: Realm, basePath: string, signingKey: JsonWebKey): Configuration {
  const { lifetimes } = realm;
  return {
    adapter: createMemoryAdapter(),
    // A client with no flow (a resource server, such as an internal tool server) only names an audience.
    clients: [...realm.clients.values()]
      .filter((client) => client.grantTypes.length > 0)
      .map((client) => ({
        client_id: client.clientId,
        ...(client.secret === undefined
          ? { token_endpoint_auth_method: 'none' as const }
          : { client_secret: client.secret, token_endpoint_auth_method: 'client_secret_basic' as const }),
        grant_types: client.grantTypes,
        response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
        // oidc-provider checks these are URIs; a port wildcard becomes a path one (matching is ours, above).
        redirect_uris: client.redirectUris.map((uri) => uri.replace(/:\*$/, '/*')),
        post_logout_redirect_uris: client.postLogoutRedirectUris,
      })),
    jwks: { keys: [signingKey] },
    // Browsers share localhost cookies across ports: names and the session cookie's path keep
    // ours apart from the applications' (the control plane runs on localhost:8080).
    cookies: {
      names: { session: 'dev_idp_session', interaction: 'dev_idp_interaction', resume: 'dev_idp_resume' },
      long: { httpOnly: true, sameSite: 'lax', path: basePath || '/' },
      keys: [randomBytes(32).toString('base64url')],
    },
    responseTypes: ['code'],
    scopes: [...SUPPORTED_SCOPES, 'offline_access'],
    claims: {
      acr: null,
      auth_time: null,
      iss: null,
      sid: null,
      openid: ['sub'],
      profile: ['preferred_username', 'name', 'given_name', 'family_name'],
      email: ['email', 'email_verified'],
    },
    // Keycloak puts the profile claims in ID tokens of the code flow too.
    conformIdTokenClaims: false,
    routes: ROUTES,
    ttl: {
      AccessToken: lifetimes.accessToken,
      ClientCredentials: lifetimes.accessToken,
      IdToken: lifetimes.accessToken,
      AuthorizationCode: 60,
      Interaction: 30 * 60,
      RefreshToken: lifetimes.ssoSessionIdle,
      Session: lifetimes.ssoSessionMax,
      Grant: lifetimes.ssoSessionMax,
    },
    pkce: { required: (_ctx, client) => realm.client(client.clientId).pkceRequired },
    clientBasedCORS: (_ctx, origin, client) => realm.client(client.clientId).webOrigins.includes(origin),
    findAccount: async (_ctx, sub) => {
      const person = realm.person(sub);
      return person && { accountId: person.id, claims: async () => ({ ...personClaims(person), sub: person.id }) };
    },
    // Keycloak gives every code-flow sign-in a refresh token, not only those asking for offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: async (_ctx, interaction) => loginActionsPath(basePath, interaction.uid) },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(out);
    },
    formats: { customizers: { jwt: customizeAccessToken(realm) } },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      pushedAuthorizationRequests: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.body = logoutPage(form);
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.body = signedOutPage();
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => ACCESS_TOKEN_RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource, client) => {
          // An MCP client names the server it signs in to (RFC 8707, as the MCP authorization spec
          // asks); the token's audiences are still the client's audience mappers, as Keycloak's.
          if (resource !== ACCESS_TOKEN_RESOURCE && !isHttpUrl(resource)) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return resourceServerInfo(realm, client.clientId);
        },
      },
    },
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol, hash } = new URL(value);
    return (protocol === 'http:' || protocol === 'https:') && hash === '';
  } catch {
    return false;
  }
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
