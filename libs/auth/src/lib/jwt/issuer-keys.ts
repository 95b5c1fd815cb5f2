import { createPublicKey, KeyObject } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { JwksClient, SigningKey } from 'jwks-rsa';
import { AUTH_OPTIONS, AuthOptions } from '../auth-options';
import { keyFitsAlgorithm, SigningAlgorithm } from './signing-algorithms';
import { quoteHeaderValue, TokenRejected } from './token-rejected';

const HTTP_TIMEOUT_MS = 5_000;
/** After a failed discovery, requests within this window fail at once instead of each hitting a down IdP. */
const DISCOVERY_RETRY_DELAY_MS = 1_000;
const KEY_CACHE_MAX_AGE_MS = 10 * 60_000;
/** A key fetched before keeps verifying this long past its cache age while the JWKS endpoint is down. */
const STALE_KEY_GRACE_MS = 60 * 60_000;
const DEFAULT_JWKS_REQUESTS_PER_MINUTE = 10;

const UNAVAILABLE = 'cannot verify tokens right now: the identity provider';

/**
 * The issuer's public keys: the JWKS URI from its discovery document (fetched on first use, so
 * a down IdP does not stop the service from starting, and retried by a later request), the keys
 * from jwks-rsa (cached per `kid`, refetched for an unknown `kid` at most N times a minute).
 */
@Injectable()
export class IssuerKeys {
  private readonly logger = new Logger('auth');
  private jwks?: JwksClient;
  private discovery?: Promise<JwksClient>;
  private lastDiscoveryFailure?: { at: number; rejection: TokenRejected };
  /** Parsed once per fetched key: jwks-rsa hands out PEM, which would otherwise be parsed per request. */
  private readonly keyObjects = new WeakMap<SigningKey, KeyObject>();

  constructor(@Inject(AUTH_OPTIONS) private readonly options: AuthOptions) {
    if (options.jwksUri) this.jwks = this.createJwksClient(options.jwksUri);
  }

  /** The key that verifies a token signed with `alg` under `kid`; throws TokenRejected when there is none. */
  async verificationKey(kid: string | undefined, alg: SigningAlgorithm): Promise<KeyObject> {
    const jwks = this.jwks ?? (await this.discoverJwks());
    let signingKey: SigningKey;
    try {
      signingKey = await jwks.getSigningKey(kid);
    } catch (error) {
      throw this.keyLookupFailure(error, kid);
    }
    // jwks-rsa's typings say `alg` is always there; it is only when the JWK announces one.
    const announcedAlg: unknown = signingKey.alg;
    if (typeof announcedAlg === 'string' && announcedAlg !== alg) {
      throw new TokenRejected(`unsupported algorithm '${alg}' for this key: its JWKS entry announces ${quoteHeaderValue(announcedAlg)}`);
    }
    const key = this.keyObjectOf(signingKey);
    if (!keyFitsAlgorithm(key, alg)) {
      throw new TokenRejected(`unsupported algorithm '${alg}' for this key: it is a ${key.asymmetricKeyType ?? 'non-asymmetric'} key`);
    }
    return key;
  }

  private discoverJwks(): Promise<JwksClient> {
    if (this.discovery) return this.discovery;
    const failure = this.lastDiscoveryFailure;
    if (failure && Date.now() - failure.at < DISCOVERY_RETRY_DELAY_MS) return Promise.reject(failure.rejection);

    this.discovery = this.fetchJwksUri().then(
      (jwksUri) => {
        this.jwks = this.createJwksClient(jwksUri);
        this.lastDiscoveryFailure = undefined;
        return this.jwks;
      },
      (error: unknown) => {
        this.discovery = undefined;
        const rejection = new TokenRejected(`${UNAVAILABLE}'s discovery document could not be read; try again shortly`);
        this.lastDiscoveryFailure = { at: Date.now(), rejection };
        this.logger.warn(`OIDC discovery for ${this.options.issuer} failed: ${errorText(error)}`);
        throw rejection;
      },
    );
    return this.discovery;
  }

  private async fetchJwksUri(): Promise<string> {
    const url = `${this.options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    // OIDC Discovery 1.0 §4.3: the document must name the issuer it was fetched for.
    if (document.issuer !== this.options.issuer) throw new Error(`${url} names issuer ${JSON.stringify(document.issuer)}`);
    if (typeof document.jwks_uri !== 'string') throw new Error(`${url} has no jwks_uri`);
    return document.jwks_uri;
  }

  private createJwksClient(jwksUri: string): JwksClient {
    return new JwksClient({
      jwksUri,
      timeout: HTTP_TIMEOUT_MS,
      cache: true,
      cacheMaxAge: KEY_CACHE_MAX_AGE_MS,
      cacheMaxAgeFallback: STALE_KEY_GRACE_MS,
      onStaleCacheFallback: (error, kid) => this.logger.warn(`JWKS ${jwksUri} unreachable, still using cached key ${String(kid)}: ${errorText(error)}`),
      rateLimit: true,
      jwksRequestsPerMinute: this.options.jwksRequestsPerMinute ?? DEFAULT_JWKS_REQUESTS_PER_MINUTE,
    });
  }

  private keyLookupFailure(error: unknown, kid: string | undefined): Error {
    const name = error instanceof Error ? error.name : undefined;
    if (name === 'SigningKeyNotFoundError') {
      return new TokenRejected(
        kid === undefined ? 'unknown key: the token names no key id (kid) and the issuer has several keys' : `unknown key: no signing key ${quoteHeaderValue(kid)} at the issuer`,
      );
    }
    if (name === 'JwksRateLimitError') {
      return new TokenRejected(`unknown key: no signing key ${quoteHeaderValue(kid)} among the cached ones, and the issuer's keys were refetched too often to look again now`);
    }
    this.logger.warn(`fetching the JWKS of ${this.options.issuer} failed: ${errorText(error)}`);
    return new TokenRejected(`${UNAVAILABLE}'s signing keys (JWKS) could not be read; try again shortly`);
  }

  private keyObjectOf(signingKey: SigningKey): KeyObject {
    let key = this.keyObjects.get(signingKey);
    if (!key) {
      key = createPublicKey(signingKey.getPublicKey());
      this.keyObjects.set(signingKey, key);
    }
    return key;
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
