import { excerpt } from '@arbor/platform';
import { UpstreamAuthInvalid } from './credentials.exception';

/**
 * How the gateway authenticates to an upstream (an MCP server now, an A2A agent next):
 * - `static`: the upstream's configured headers (with `{{project.repository_token}}`), the same whoever calls;
 * - `token_exchange`: the caller's own sign-in token exchanged (RFC 8693) at the suite's identity
 *   provider for one of the same person whose audience is `audience`;
 * - `oauth`: per person, against the upstream's own authorisation server (discovered from its
 *   RFC 9728 metadata), each person connecting once in the browser.
 */
export type UpstreamAuth = StaticAuth | TokenExchangeAuth | OAuthAuth;

export interface StaticAuth {
  type: 'static';
}

export interface TokenExchangeAuth {
  type: 'token_exchange';
  /** The upstream's audience at the identity provider (Keycloak: its client id). */
  audience: string;
  /** Asked for with the exchange; default none (the identity provider's default scopes). */
  scope?: string;
}

export interface OAuthAuth {
  type: 'oauth';
  /** Asked for at the connection; default the authorisation server's `scopes_supported` as the resource lists them, else none. */
  scope?: string;
  /** A client registered at the upstream's authorisation server; without it the gateway registers one (RFC 7591). */
  clientId?: string;
  /** The secret of `clientId` (stored sealed, never shown again); none for a public client. */
  clientSecret?: string;
  /** Machine callers (API keys) get a token with the client-credentials grant; needs `clientId` and `clientSecret`. Default false: they are refused. */
  clientCredentials?: boolean;
}

export const STATIC_AUTH: StaticAuth = { type: 'static' };
export const AUTH_TYPES = ['static', 'token_exchange', 'oauth'] as const;

/** Whether each caller is authenticated as itself (never with the gateway's or another person's credentials). */
export function isPerCaller(auth: UpstreamAuth | undefined): auth is TokenExchangeAuth | OAuthAuth {
  return auth !== undefined && auth.type !== 'static';
}

/** Whether two auths say the same (key order aside: PostgreSQL's jsonb keeps its own). */
export function sameAuth(a: UpstreamAuth | undefined, b: UpstreamAuth | undefined): boolean {
  const canonical = (auth: UpstreamAuth | undefined) => JSON.stringify(Object.entries(auth ?? STATIC_AUTH).sort(([x], [y]) => (x < y ? -1 : 1)));
  return canonical(a) === canonical(b);
}

/** `auth` as MCPGW_CONFIG and the admin API write it: snake_case. */
export interface UpstreamAuthWire {
  type: (typeof AUTH_TYPES)[number];
  audience?: string;
  scope?: string;
  client_id?: string;
  client_secret?: string;
  client_credentials?: boolean;
}

const KEYS: Record<UpstreamAuth['type'], readonly string[]> = {
  static: ['type'],
  token_exchange: ['type', 'audience', 'scope'],
  oauth: ['type', 'scope', 'client_id', 'client_secret', 'client_credentials'],
};
const MAX_TEXT = 2048;

/**
 * Reads an `auth` mapping (absent: static), reporting every problem as (path, message) with the
 * field's path under `at`; the secret is never quoted. Shared by MCPGW_CONFIG and the admin API.
 * `secretMayBeStored`: a change of a stored auth, whose client secret the same client id keeps
 * (keepingStoredSecret), so `client_credentials` without `client_secret` is checked after that.
 */
export function readUpstreamAuth(
  value: unknown,
  at: string,
  problem: (path: string, message: string) => void,
  options: { secretMayBeStored?: boolean } = {},
): UpstreamAuth | undefined {
  if (value === undefined || value === null) return STATIC_AUTH;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problem(at, `must be a mapping with a type (${AUTH_TYPES.join(', ')})`);
    return undefined;
  }
  const entry = value as Record<string, unknown>;
  const type = entry['type'];
  if (typeof type !== 'string' || !(AUTH_TYPES as readonly string[]).includes(type)) {
    problem(`${at}.type`, `must be one of ${AUTH_TYPES.join(', ')}`);
    return undefined;
  }
  const kind = type as UpstreamAuth['type'];
  let ok = true;
  const fail = (path: string, message: string) => {
    ok = false;
    problem(path, message);
  };
  for (const key of Object.keys(entry)) {
    if (!KEYS[kind].includes(key)) fail(`${at}.${excerpt(key)}`, `is not a setting of ${kind} auth (${KEYS[kind].join(', ')})`);
  }
  const text = (key: string, required: boolean): string | undefined => {
    const raw = entry[key];
    if (raw === undefined || raw === null) {
      if (required) fail(`${at}.${key}`, 'is required');
      return undefined;
    }
    if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_TEXT || /[\r\n\0]/.test(raw)) {
      fail(`${at}.${key}`, `must be a non-empty string of at most ${MAX_TEXT} characters on one line`);
      return undefined;
    }
    return raw;
  };
  if (kind === 'static') return ok ? STATIC_AUTH : undefined;
  if (kind === 'token_exchange') {
    const audience = text('audience', true);
    const scope = text('scope', false);
    return ok && audience !== undefined ? { type: 'token_exchange', audience, ...(scope !== undefined ? { scope } : {}) } : undefined;
  }
  const scope = text('scope', false);
  const clientId = text('client_id', false);
  const clientSecret = text('client_secret', false);
  const rawCredentials = entry['client_credentials'];
  if (rawCredentials !== undefined && typeof rawCredentials !== 'boolean') fail(`${at}.client_credentials`, 'must be true or false');
  const clientCredentials = rawCredentials === true;
  if (clientSecret !== undefined && clientId === undefined) fail(`${at}.client_secret`, 'needs client_id');
  if (clientCredentials && (clientId === undefined || (clientSecret === undefined && !options.secretMayBeStored))) fail(`${at}.client_credentials`, CLIENT_CREDENTIALS_NEED);
  if (!ok) return undefined;
  return {
    type: 'oauth',
    ...(scope !== undefined ? { scope } : {}),
    ...(clientId !== undefined ? { clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(clientCredentials ? { clientCredentials } : {}),
  };
}

const CLIENT_CREDENTIALS_NEED = 'needs client_id and client_secret';

/**
 * An `oauth` auth written again for the same client without its secret keeps the stored one (a
 * secret is write-only, so a client cannot repeat it). Throws UpstreamAuthInvalid when the
 * client-credentials grant is asked for and there is no secret, typed or stored.
 */
export function keepingStoredSecret(auth: OAuthAuth, current: { type: string } | undefined): OAuthAuth {
  const stored = current?.type === 'oauth' ? (current as OAuthAuth) : undefined;
  const kept = auth.clientSecret !== undefined || stored?.clientSecret === undefined || stored.clientId !== auth.clientId ? auth : { ...auth, clientSecret: stored.clientSecret };
  if (kept.clientCredentials && kept.clientSecret === undefined) throw new UpstreamAuthInvalid(`auth.client_credentials ${CLIENT_CREDENTIALS_NEED}`);
  return kept;
}

/** What the admin API shows of an `auth`: everything but the secret, which is write-only. */
export function authResponse(auth: UpstreamAuth): Omit<UpstreamAuthWire, 'client_secret'> & { has_client_secret?: boolean } {
  if (auth.type === 'static') return { type: 'static' };
  if (auth.type === 'token_exchange') return { type: 'token_exchange', audience: auth.audience, ...(auth.scope !== undefined ? { scope: auth.scope } : {}) };
  return {
    type: 'oauth',
    ...(auth.scope !== undefined ? { scope: auth.scope } : {}),
    ...(auth.clientId !== undefined ? { client_id: auth.clientId } : {}),
    has_client_secret: auth.clientSecret !== undefined,
    client_credentials: auth.clientCredentials === true,
  };
}
