import { createHash, createPublicKey, KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { decode, verify } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { LRUCache } from 'lru-cache';
import { ContractHttpError } from '../errors/contract-http-error';

/** Asymmetric algorithms only: `none` and HS* (a public key misused as an HMAC secret) never verify. */
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;
type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** Largest accepted difference between our clock and the issuer's, in seconds. */
export const CLOCK_TOLERANCE_SECONDS = 60;
const HTTP_TIMEOUT_MS = 5_000;
const DISCOVERY_RETRY_DELAY_MS = 1_000;

export interface TokenVerifierOptions {
  /** Must equal the tokens' `iss`. */
  issuer: string;
  /** Must be among the tokens' `aud`. */
  audience: string;
  /** The issuer's JWKS; read from `<issuer>/.well-known/openid-configuration` when absent. */
  jwksUri?: string;
}

/** The verified caller of a request. */
export interface VerifiedCaller {
  /** `machine` for a client-credentials token, else `person`. */
  readonly kind: 'person' | 'machine';
  /** `sub` (a machine token without one is named by its client id). */
  readonly subject: string;
  /** The client the token was issued to: `azp`, else `client_id`. */
  readonly clientId?: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

export function missingToken(realm: string): ContractHttpError {
  return new ContractHttpError(401, 'missing_token', 'this endpoint needs a bearer token (Authorization: Bearer <token>)', undefined, {
    'WWW-Authenticate': `Bearer realm="${headerSafe(realm)}"`,
  });
}

export function invalidToken(realm: string, reason: string): ContractHttpError {
  return new ContractHttpError(401, 'invalid_token', `invalid bearer token: ${reason}`, undefined, {
    'WWW-Authenticate': `Bearer realm="${headerSafe(realm)}", error="invalid_token", error_description="${headerSafe(reason)}"`,
  });
}

class TokenRejected extends Error {}

/**
 * Bearer tokens of one issuer and audience: algorithm allow-list, issuer, audience and expiry are
 * checked on the unverified token first (a foreign token never makes us fetch keys), then the
 * signature with the issuer's key for the token's `kid` (jwks-rsa, cached, rate-limited).
 */
export class TokenVerifier {
  private jwks?: JwksClient;
  private discovery?: Promise<JwksClient>;
  private lastDiscoveryFailure = 0;
  private readonly verified = new LRUCache<string, VerifiedCaller>({ max: 10_000 });

  constructor(private readonly options: TokenVerifierOptions) {
    const problems = verifierProblems(options);
    if (problems.length > 0) throw new Error(problems.join('; '));
    if (options.jwksUri) this.jwks = jwksClient(options.jwksUri);
  }

  /** The caller of `request`; rejects with a 401 ContractHttpError. */
  async authenticate(request: Pick<IncomingMessage, 'headers'>): Promise<VerifiedCaller> {
    const token = bearerToken(request);
    if (token === null) {
      // `Bearer` with something that is no token is a malformed token, not a missing one.
      if (/^\s*Bearer\s+\S/i.test(request.headers.authorization ?? '')) throw invalidToken(this.options.audience, 'token is malformed');
      throw missingToken(this.options.audience);
    }
    return this.verify(token);
  }

  async verify(token: string): Promise<VerifiedCaller> {
    const cacheKey = createHash('sha256').update(token).digest('base64url');
    const known = this.verified.get(cacheKey);
    if (known && Date.now() / 1000 < (known.claims['exp'] as number) + CLOCK_TOLERANCE_SECONDS) return known;
    try {
      const { kid, alg } = this.precheck(token);
      const key = await this.keyFor(kid);
      const claims = verifyWith(token, key, alg, this.options);
      const caller = callerOf(claims);
      this.verified.set(cacheKey, caller);
      return caller;
    } catch (error) {
      if (error instanceof TokenRejected) throw invalidToken(this.options.audience, error.message);
      throw error;
    }
  }

  private precheck(token: string): { kid?: string; alg: SigningAlgorithm } {
    let decoded: ReturnType<typeof decode>;
    try {
      decoded = decode(token, { complete: true, json: true });
    } catch {
      // A header or payload that is not base64url JSON: anyone can send one, so it is a 401, never a 500.
      throw new TokenRejected('token is malformed');
    }
    if (!decoded || typeof decoded.payload !== 'object' || decoded.payload === null) throw new TokenRejected('token is malformed');
    const { alg, kid } = decoded.header as { alg?: unknown; kid?: unknown };
    if (!(SIGNING_ALGORITHMS as readonly unknown[]).includes(alg)) throw new TokenRejected(`unsupported algorithm ${JSON.stringify(String(alg))}`);
    if (kid !== undefined && typeof kid !== 'string') throw new TokenRejected('token is malformed: kid is not a string');
    const claims = decoded.payload as Record<string, unknown>;
    if (claims['iss'] !== this.options.issuer) throw new TokenRejected(`wrong issuer: the token was not issued by ${this.options.issuer}`);
    const audiences: unknown[] = Array.isArray(claims['aud']) ? claims['aud'] : [claims['aud']];
    if (!audiences.includes(this.options.audience)) throw new TokenRejected(`wrong audience: the token is not meant for ${this.options.audience}`);
    if (typeof claims['exp'] !== 'number') throw new TokenRejected('token has no expiry (exp)');
    if (Date.now() / 1000 >= claims['exp'] + CLOCK_TOLERANCE_SECONDS) throw new TokenRejected('token expired');
    return { ...(kid === undefined ? {} : { kid }), alg: alg as SigningAlgorithm };
  }

  private async keyFor(kid: string | undefined): Promise<KeyObject> {
    const jwks = this.jwks ?? (await this.discoverJwks());
    try {
      return createPublicKey((await jwks.getSigningKey(kid)).getPublicKey());
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      if (name === 'SigningKeyNotFoundError' || name === 'JwksRateLimitError') throw new TokenRejected(`unknown key: no signing key ${JSON.stringify(kid)} at the issuer`);
      throw new TokenRejected("cannot verify tokens right now: the identity provider's signing keys could not be read");
    }
  }

  private discoverJwks(): Promise<JwksClient> {
    if (this.discovery) return this.discovery;
    if (Date.now() - this.lastDiscoveryFailure < DISCOVERY_RETRY_DELAY_MS) {
      return Promise.reject(new TokenRejected("cannot verify tokens right now: the identity provider's discovery document could not be read"));
    }
    this.discovery = discoverDocument(this.options.issuer).then(
      (document) => {
        if (typeof document['jwks_uri'] !== 'string') throw new Error('no jwks_uri');
        this.jwks = jwksClient(document['jwks_uri']);
        return this.jwks;
      },
      () => {
        this.discovery = undefined;
        this.lastDiscoveryFailure = Date.now();
        throw new TokenRejected("cannot verify tokens right now: the identity provider's discovery document could not be read");
      },
    );
    return this.discovery;
  }
}

/** The discovery document of `issuer`, checked to name that issuer (OIDC Discovery §4.3). */
export async function discoverDocument(issuer: string): Promise<Record<string, unknown>> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  const document = (await response.json()) as Record<string, unknown>;
  if (document['issuer'] !== issuer) throw new Error(`${url} names issuer ${JSON.stringify(document['issuer'])}`);
  return document;
}

export function verifierProblems(options: Partial<TokenVerifierOptions>): string[] {
  const problems: string[] = [];
  if (typeof options.issuer !== 'string' || !isHttpUrl(options.issuer)) problems.push(`issuer must be an http(s) URL, got ${JSON.stringify(options.issuer)}`);
  if (typeof options.audience !== 'string' || options.audience.trim() === '') problems.push('audience must be a non-empty string');
  if (options.jwksUri !== undefined && !isHttpUrl(options.jwksUri)) problems.push(`jwksUri must be an http(s) URL, got ${JSON.stringify(options.jwksUri)}`);
  return problems;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function jwksClient(jwksUri: string): JwksClient {
  return new JwksClient({ jwksUri, timeout: HTTP_TIMEOUT_MS, cache: true, cacheMaxAge: 10 * 60_000, rateLimit: true, jwksRequestsPerMinute: 10 });
}

function verifyWith(token: string, key: KeyObject, alg: SigningAlgorithm, options: TokenVerifierOptions): Record<string, unknown> {
  try {
    return verify(token, key, {
      algorithms: [alg],
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new TokenRejected(/signature/.test(message) ? 'signature does not verify with the issuer key' : `token is invalid (${message})`);
  }
}

/** `Authorization: Bearer <token>` (scheme case-insensitive), or null. */
export function bearerToken(request: Pick<IncomingMessage, 'headers'>): string | null {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(request.headers.authorization ?? '');
  return match ? match[1] : null;
}

function callerOf(claims: Record<string, unknown>): VerifiedCaller {
  const text = (name: string) => (typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : undefined);
  const clientId = text('azp') ?? text('client_id');
  // Keycloak names every service account `service-account-<client>`; RFC 9068 issuers put client_id in machine tokens.
  const username = text('preferred_username');
  const kind = username !== undefined ? (username.startsWith('service-account-') ? 'machine' : 'person') : text('client_id') !== undefined ? 'machine' : 'person';
  const subject = text('sub') ?? (kind === 'machine' ? clientId : undefined);
  if (subject === undefined) throw new TokenRejected('token names no subject (sub)');
  return Object.freeze({ kind, subject, ...(clientId === undefined ? {} : { clientId }), claims: Object.freeze({ ...claims }) });
}

function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]|["\\]/g, "'");
}
