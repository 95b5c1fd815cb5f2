/** What `AuthModule.forRoot()` needs to verify this service's bearer tokens. */
export interface AuthOptions {
  /** Must equal the tokens' `iss` exactly, e.g. `https://sso.example.com/realms/arbor`. */
  issuer: string;
  /** This service's audience; a token's `aud` (a string or an array) must contain it. */
  audience: string;
  /** The issuer's JWKS; when absent it is read from the issuer's discovery document on first use. */
  jwksUri?: string;
  /** Most JWKS fetches per minute, refetches for an unknown `kid` included (default 10). */
  jwksRequestsPerMinute?: number;
}

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');

/** Refuses options that could only fail later, one line per problem, so a bad setting stops the start. */
export function validateAuthOptions(options: AuthOptions): AuthOptions {
  const problems: string[] = [];
  if (!isHttpUrl(options.issuer)) problems.push(`issuer must be an http(s) URL, got ${JSON.stringify(options.issuer)}`);
  if (typeof options.audience !== 'string' || options.audience.trim() === '') problems.push('audience must be a non-empty string');
  if (options.jwksUri !== undefined && !isHttpUrl(options.jwksUri)) {
    problems.push(`jwksUri must be an http(s) URL, got ${JSON.stringify(options.jwksUri)}`);
  }
  const perMinute = options.jwksRequestsPerMinute;
  if (perMinute !== undefined && !(Number.isInteger(perMinute) && perMinute > 0)) {
    problems.push(`jwksRequestsPerMinute must be a positive integer, got ${String(perMinute)}`);
  }
  if (problems.length > 0) throw new Error(`AuthModule.forRoot: ${problems.join('; ')}`);
  return { ...options };
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
