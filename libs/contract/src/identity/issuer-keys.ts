import { createPublicKey, KeyObject } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { JwksClient, SigningKey } from 'jwks-rsa';
import { IssuerMetadata } from './oidc-discovery';
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
export interface IssuerKeysOptions {
  issuer: string;
  /** The issuer's JWKS; read from its discovery document on first use when absent. */
  jwksUri?: string;
  /** Most JWKS fetches per minute, refetches for an unknown `kid` included (default 10). */
  jwksRequestsPerMinute?: number;
}

export class IssuerKeys {
  private readonly logger = new Logger('auth');
  private readonly metadata: IssuerMetadata;
  private jwks?: JwksClient;
  private discovery?: Promise<JwksClient>;
  /** Parsed once per fetched key: jwks-rsa hands out PEM, which would otherwise be parsed per request. */
  private readonly keyObjects = new WeakMap<SigningKey, KeyObject>();

  constructor(private readonly options: IssuerKeysOptions) {
    this.metadata = new IssuerMetadata(options.issuer, { timeoutMs: HTTP_TIMEOUT_MS, retryDelayMs: DISCOVERY_RETRY_DELAY_MS });
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
    this.discovery ??= this.metadata.jwksUri().then(
      (jwksUri) => (this.jwks = this.createJwksClient(jwksUri)),
      (error: unknown) => {
        this.discovery = undefined;
        this.logger.warn(`OIDC discovery for ${this.options.issuer} failed: ${errorText(error)}`);
        throw new TokenRejected(`${UNAVAILABLE}'s discovery document could not be read; try again shortly`);
      },
    );
    return this.discovery;
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
