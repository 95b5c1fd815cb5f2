import { excerpt } from '@arbor/platform';
import * as oidc from 'openid-client';
import { callerKey, type CredentialCaller } from './credential-caller';
import { CredentialsUnavailable } from './credentials.exception';
import type { CredentialStrategy, PerCallerUpstream } from './upstream-credentials';

const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** An exchanged token is used until this long before it expires, so it never expires on the way. */
const EXPIRY_MARGIN_MS = 30_000;
/** Exchanged tokens kept at most (one per person and audience); the oldest go first. */
const MAX_CACHED = 10_000;

/** The gateway's own confidential client at the suite's identity provider (MCPGW_OIDC_CLIENT_*). */
export interface TokenExchangeSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * `token_exchange`: the calling person's own token (audience mcp-gateway) exchanged at the suite's
 * identity provider (RFC 8693, with openid-client) for a token of the same person whose audience
 * is the upstream's, the gateway authenticating as its own confidential client. Kept per person
 * and audience until shortly before it expires. A machine caller has no person to exchange for.
 */
export class TokenExchangeCredentials implements CredentialStrategy {
  private configuration?: Promise<oidc.Configuration>;
  private readonly cache = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly settings: TokenExchangeSettings | undefined) {}

  async headersFor(upstream: PerCallerUpstream, caller: CredentialCaller | undefined): Promise<Record<string, string>> {
    if (upstream.auth.type !== 'token_exchange') throw new Error(`upstream ${upstream.name} does not use token exchange`);
    const { audience, scope } = upstream.auth;
    if (caller?.kind !== 'person') {
      throw new CredentialsUnavailable(
        'person_required',
        upstream.name,
        `Upstream "${upstream.name}" acts for the person calling (token exchange), and this caller is no person: call it with a person's sign-in token, not an MCP API key`,
      );
    }
    const key = `${callerKey(caller)}\u0000${audience}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return { authorization: `Bearer ${cached.token}` };
    const settings = this.settings;
    if (!settings) {
      throw new CredentialsUnavailable(
        'token_exchange_not_configured',
        upstream.name,
        `Upstream "${upstream.name}" needs token exchange, which this gateway is not set up for (MCPGW_OIDC_CLIENT_ID, MCPGW_OIDC_CLIENT_SECRET, MCPGW_OIDC_ISSUER_URL)`,
      );
    }
    let answer: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
    try {
      answer = await oidc.genericGrantRequest(await this.config(settings), TOKEN_EXCHANGE_GRANT, {
        subject_token: caller.token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        requested_token_type: ACCESS_TOKEN_TYPE,
        audience,
        ...(scope !== undefined ? { scope } : {}),
      });
    } catch (error) {
      throw new CredentialsUnavailable('token_exchange_failed', upstream.name, `Your sign-in could not be exchanged for upstream "${upstream.name}": ${reasonOf(error)}`);
    }
    const expiresIn = answer.expiresIn() ?? 60;
    if (this.cache.size >= MAX_CACHED) this.evict();
    this.cache.set(key, { token: answer.access_token, expiresAt: Date.now() + expiresIn * 1000 });
    return { authorization: `Bearer ${answer.access_token}` };
  }

  private config(settings: TokenExchangeSettings): Promise<oidc.Configuration> {
    const issuer = new URL(settings.issuer);
    this.configuration ??= oidc
      .discovery(issuer, settings.clientId, undefined, oidc.ClientSecretBasic(settings.clientSecret), {
        // The suite's own identity provider on plain HTTP is a development setup (the dev-idp).
        ...(issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
      })
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw error;
      });
    return this.configuration;
  }

  private evict(): void {
    const now = Date.now();
    for (const [key, entry] of this.cache) if (entry.expiresAt - EXPIRY_MARGIN_MS <= now) this.cache.delete(key);
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
  }
}

/** The identity provider's own words (its error and description), or what kept it from answering. */
export function reasonOf(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError) {
    return `the identity provider answered ${error.error}${error.error_description ? ` (${excerpt(error.error_description)})` : ''}`;
  }
  // A 401 with a challenge: the client's own credentials were refused.
  if (error instanceof oidc.WWWAuthenticateChallengeError) return `the identity provider refused the gateway's client (HTTP ${error.status})`;
  if (error instanceof oidc.ClientError) return 'the identity provider answered in a way the gateway does not understand';
  return 'the identity provider could not be reached';
}
