import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import passport from 'passport';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { AUTH_OPTIONS, AuthOptions } from '../auth-options';
import { AuthExtensions } from '../auth-extensions';
import { Principal, principalFromClaims, TokenClaims } from '../principal/principal';
import { invalidToken, missingToken } from './bearer-challenge';
import { IssuerKeys } from './issuer-keys';
import { SIGNING_ALGORITHMS } from './signing-algorithms';
import { CLOCK_TOLERANCE_SECONDS, precheckToken } from './token-precheck';
import { TokenRejected } from './token-rejected';

const STRATEGY = 'arbor-bearer';

/** Verified tokens remembered (by hash) so that a caller's next requests skip the signature check. */
const VERIFIED_TOKENS = 10_000;

/** The credentials part of `Authorization: Bearer <token>` (scheme case-insensitive), or null. */
export function extractBearerToken(request: Pick<IncomingMessage, 'headers'>): string | null {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(request.headers.authorization ?? '');
  return match ? match[1] : null;
}

/**
 * Verifies bearer tokens with passport-jwt: precheck (algorithm allow-list, iss, aud, exp),
 * the issuer's key for the token's `kid`, then jsonwebtoken's signature and claim checks.
 * Runs on a Passport instance of its own: the global one keys strategies by name, so two apps in
 * one process (a test with the control plane and a product) would verify with each other's audience.
 */
@Injectable()
export class BearerTokenVerifier {
  private readonly logger = new Logger('auth');
  private readonly passport = new passport.Passport();
  /**
   * Claims of tokens whose signature and claims verified, by SHA-256 of the token, until the
   * token expires: the signature check is most of the cost of a request on a hot path (a product
   * asking for effective permissions with the same service token). Kept by hash, not the token.
   */
  private readonly verified = new LRUCache<string, TokenClaims>({ max: VERIFIED_TOKENS });

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
    issuerKeys: IssuerKeys,
    private readonly extensions: AuthExtensions,
  ) {
    const expected = { issuer: options.issuer, audience: options.audience };
    const strategy = new JwtStrategy(
      {
        jwtFromRequest: extractBearerToken,
        secretOrKeyProvider: (_request: unknown, rawToken: string, done: (error: unknown, key?: string) => void) => {
          let keyReference;
          try {
            keyReference = precheckToken(rawToken, expected);
          } catch (error) {
            return done(error);
          }
          // jsonwebtoken takes a KeyObject (no PEM parse per request); passport-jwt's typings predate that.
          issuerKeys.verificationKey(keyReference.kid, keyReference.alg).then((key) => done(null, key as unknown as string), done);
        },
        issuer: options.issuer,
        audience: options.audience,
        algorithms: [...SIGNING_ALGORITHMS],
        jsonWebTokenOptions: { clockTolerance: CLOCK_TOLERANCE_SECONDS },
      },
      (claims: TokenClaims, done: (error: unknown, principal?: Principal) => void) => {
        this.principalFor(claims).then((principal) => done(null, principal), done);
      },
    );
    this.passport.use(STRATEGY, strategy);
  }

  /** The principal of the request's bearer token; rejects with a 401 ApiError (or the admin resolver's error). */
  authenticate(request: IncomingMessage): Promise<Principal> {
    const token = extractBearerToken(request);
    if (token === null) {
      // `Bearer` with something that is no token is a malformed token (RFC 6750 §3.1), not a missing one.
      const malformed = /^\s*Bearer\s+\S/i.test(request.headers.authorization ?? '');
      return Promise.reject(malformed ? invalidToken(this.options.audience, 'token is malformed') : missingToken(this.options.audience));
    }
    const key = createHash('sha256').update(token).digest('base64url');
    const claims = this.verified.get(key);
    // The same expiry rule as the verification: exp plus the clock tolerance.
    if (claims !== undefined && Date.now() / 1000 < (claims['exp'] as number) + CLOCK_TOLERANCE_SECONDS) return this.principalFor(claims);
    return new Promise((resolve, reject) => {
      const middleware = this.passport.authenticate(STRATEGY, { session: false }, (error: unknown, principal: Principal | false, info: unknown) => {
        if (principal) {
          this.verified.set(key, principal.claims);
          return resolve(principal);
        }
        // passport-jwt reports a bad token as `info`; `error` comes from building the principal.
        if (error) return reject(error instanceof TokenRejected ? invalidToken(this.options.audience, error.message) : error);
        reject(invalidToken(this.options.audience, this.reasonFor(info)));
      });
      middleware(request, undefined, reject);
    });
  }

  private async principalFor(claims: TokenClaims): Promise<Principal> {
    const principal = principalFromClaims(claims);
    const resolver = this.extensions.adminResolver;
    const isAdmin = principal.isAdmin || (resolver !== undefined && (await resolver.isAdmin(principal)));
    return Object.freeze(isAdmin === principal.isAdmin ? principal : { ...principal, isAdmin });
  }

  /** A message for the caller: ours as they are, jsonwebtoken's reworded, anything else generic (and logged). */
  private reasonFor(info: unknown): string {
    if (info instanceof TokenRejected) return info.message;
    const error = info instanceof Error ? info : undefined;
    switch (error?.name) {
      case 'TokenExpiredError':
        return `token expired at ${(error as Error & { expiredAt: Date }).expiredAt.toISOString()}`;
      case 'NotBeforeError':
        return `token is not valid before ${(error as Error & { date: Date }).date.toISOString()}`;
      case 'JsonWebTokenError':
        return JSONWEBTOKEN_REASONS.find(([prefix]) => error.message.startsWith(prefix))?.[1] ?? 'token is invalid';
    }
    this.logger.warn(`bearer token refused for an unexpected reason: ${error?.message ?? String(info)}`);
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
