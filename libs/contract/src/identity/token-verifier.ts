import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Logger } from '@nestjs/common';
import { verify } from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { ContractHttpError } from '../errors/contract-http-error';
import { bearerToken, hasMalformedBearer } from './bearer';
import { IssuerKeys } from './issuer-keys';
import { CLOCK_TOLERANCE_SECONDS, precheckToken } from './token-precheck';
import { TokenRejected } from './token-rejected';

export { CLOCK_TOLERANCE_SECONDS } from './token-precheck';
export { SIGNING_ALGORITHMS } from './signing-algorithms';

export interface TokenVerifierOptions {
  /** Must equal the tokens' `iss`. */
  issuer: string;
  /** Must be among the tokens' `aud`. */
  audience: string;
  /** The issuer's JWKS; read from `<issuer>/.well-known/openid-configuration` when absent. */
  jwksUri?: string;
  /** Most JWKS fetches per minute, refetches for an unknown `kid` included (default 10). */
  jwksRequestsPerMinute?: number;
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

/** RFC 6750 §3: a request without credentials gets the bare challenge, without an error code. */
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

/** Verified tokens remembered (by hash) so that a caller's next requests skip the signature check. */
const VERIFIED_TOKENS = 10_000;

/**
 * Bearer tokens of one issuer and audience: algorithm allow-list (RS/PS/ES), issuer, audience,
 * expiry and not-before (60 s tolerance) are checked on the unverified token first (a foreign or
 * stale token never makes us fetch keys), then the signature with the issuer's key for the
 * token's `kid` (jwks-rsa: cached, rate-limited, kept while the JWKS is unreachable), whose type
 * and announced `alg` must fit the token's.
 */
export class TokenVerifier {
  private readonly logger = new Logger('auth');
  private readonly keys: IssuerKeys;
  /** Callers of tokens that verified, by SHA-256 of the token (never the token), until it expires. */
  private readonly verified = new LRUCache<string, VerifiedCaller>({ max: VERIFIED_TOKENS });

  constructor(private readonly options: TokenVerifierOptions) {
    const problems = verifierProblems(options);
    if (problems.length > 0) throw new Error(problems.join('; '));
    this.keys = new IssuerKeys(options);
  }

  /** The caller of `request`; rejects with a 401 ContractHttpError. */
  async authenticate(request: Pick<IncomingMessage, 'headers'>): Promise<VerifiedCaller> {
    const token = bearerToken(request);
    if (token === null) {
      throw hasMalformedBearer(request) ? invalidToken(this.options.audience, 'token is malformed') : missingToken(this.options.audience);
    }
    return this.verify(token);
  }

  /** The caller a raw token names; rejects with a 401 ContractHttpError. */
  async verify(token: string): Promise<VerifiedCaller> {
    const cacheKey = createHash('sha256').update(token).digest('base64url');
    const known = this.verified.get(cacheKey);
    // The same expiry rule as the verification: exp plus the clock tolerance.
    if (known && Date.now() / 1000 < (known.claims['exp'] as number) + CLOCK_TOLERANCE_SECONDS) return known;
    try {
      const { kid, alg } = precheckToken(token, this.options);
      const key = await this.keys.verificationKey(kid, alg);
      let claims: Record<string, unknown>;
      try {
        claims = verify(token, key, {
          algorithms: [alg],
          issuer: this.options.issuer,
          audience: this.options.audience,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        }) as Record<string, unknown>;
      } catch (error) {
        throw new TokenRejected(this.reasonFor(error));
      }
      const caller = callerFromClaims(claims);
      this.verified.set(cacheKey, caller);
      return caller;
    } catch (error) {
      if (error instanceof TokenRejected) throw invalidToken(this.options.audience, error.message);
      throw error;
    }
  }

  /** A message for the caller: jsonwebtoken's reasons reworded, anything else generic (and logged). */
  private reasonFor(error: unknown): string {
    const failure = error instanceof Error ? error : undefined;
    switch (failure?.name) {
      case 'TokenExpiredError':
        return `token expired at ${(failure as Error & { expiredAt: Date }).expiredAt.toISOString()}`;
      case 'NotBeforeError':
        return `token is not valid before ${(failure as Error & { date: Date }).date.toISOString()}`;
      case 'JsonWebTokenError':
        return JSONWEBTOKEN_REASONS.find(([prefix]) => failure.message.startsWith(prefix))?.[1] ?? 'token is invalid';
    }
    this.logger.warn(`bearer token refused for an unexpected reason: ${failure?.message ?? String(error)}`);
    return 'token could not be verified';
  }
}

const JSONWEBTOKEN_REASONS: ReadonlyArray<readonly [string, string]> = [
  ['invalid signature', 'signature does not verify with the issuer key'],
  ['jwt audience invalid', 'wrong audience'],
  ['jwt issuer invalid', 'wrong issuer'],
  ['invalid algorithm', 'unsupported algorithm'],
  ['jwt malformed', 'token is malformed'],
  ['jwt signature is required', 'token is not signed'],
];

export function verifierProblems(options: Partial<TokenVerifierOptions>): string[] {
  const problems: string[] = [];
  if (typeof options.issuer !== 'string' || !isHttpUrl(options.issuer)) problems.push(`issuer must be an http(s) URL, got ${JSON.stringify(options.issuer)}`);
  if (typeof options.audience !== 'string' || options.audience.trim() === '') problems.push('audience must be a non-empty string');
  if (options.jwksUri !== undefined && !isHttpUrl(options.jwksUri)) problems.push(`jwksUri must be an http(s) URL, got ${JSON.stringify(options.jwksUri)}`);
  const perMinute = options.jwksRequestsPerMinute;
  if (perMinute !== undefined && !(Number.isInteger(perMinute) && perMinute > 0)) problems.push(`jwksRequestsPerMinute must be a positive integer, got ${String(perMinute)}`);
  return problems;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Keycloak names the user behind every client's service account `service-account-<client>`. */
const SERVICE_ACCOUNT_PREFIX = 'service-account-';

/**
 * Who verified claims name. A client-credentials token is a machine: Keycloak's username is
 * `service-account-…`, and only such tokens carry `client_id`; issuers that follow RFC 9068 put
 * `client_id` in every token, persons' too, so a username that is not a service account's
 * decides for a person before `client_id` is looked at. Throws TokenRejected without a subject.
 */
export function callerFromClaims(claims: Record<string, unknown>): VerifiedCaller {
  const text = (name: string) => (typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : undefined);
  const clientId = text('azp') ?? text('client_id');
  const username = text('preferred_username');
  const kind = username !== undefined ? (username.startsWith(SERVICE_ACCOUNT_PREFIX) ? 'machine' : 'person') : text('client_id') !== undefined ? 'machine' : 'person';
  const subject = text('sub') ?? (kind === 'machine' ? clientId : undefined);
  if (subject === undefined) throw new TokenRejected('token names no subject (sub)');
  return Object.freeze({ kind, subject, ...(clientId === undefined ? {} : { clientId }), claims: Object.freeze({ ...claims }) });
}

/** RFC 6750 allows printable ASCII without `"` and `\` inside these quoted values. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]|["\\]/g, "'");
}
