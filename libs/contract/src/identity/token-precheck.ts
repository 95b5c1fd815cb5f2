import { decode } from 'jsonwebtoken';
import { isSigningAlgorithm, SigningAlgorithm } from './signing-algorithms';
import { quoteHeaderValue, TokenRejected } from './token-rejected';

/** Largest accepted difference between our clock and the issuer's, in seconds. */
export const CLOCK_TOLERANCE_SECONDS = 60;

export interface TokenExpectations {
  issuer: string;
  audience: string;
}

export interface TokenKeyReference {
  kid: string | undefined;
  alg: SigningAlgorithm;
}

/**
 * Refuses, from the unverified header and claims, every token that could not pass anyway, before
 * any key lookup: a foreign or stale token must not make us fetch the JWKS. Acceptance still
 * needs the signature check that follows; refusing early on unverified data is always safe.
 */
export function precheckToken(rawToken: string, expected: TokenExpectations, nowSeconds = Date.now() / 1000): TokenKeyReference {
  const decoded = decodeToken(rawToken);
  const { alg, kid } = decoded.header;
  if (!isSigningAlgorithm(alg)) {
    throw new TokenRejected(`unsupported algorithm ${quoteHeaderValue(alg)}: only RS256/384/512, PS256/384/512 and ES256/384/512 are accepted`);
  }
  if (kid !== undefined && typeof kid !== 'string') throw new TokenRejected('token is malformed: kid is not a string');

  const claims = decoded.payload;
  if (claims.iss !== expected.issuer) throw new TokenRejected(`wrong issuer: the token was not issued by ${expected.issuer}`);
  const audiences: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(expected.audience)) throw new TokenRejected(`wrong audience: the token is not meant for ${expected.audience}`);
  if (typeof claims.exp !== 'number') throw new TokenRejected('token has no expiry (exp)');
  if (nowSeconds >= claims.exp + CLOCK_TOLERANCE_SECONDS) {
    throw new TokenRejected(`token expired at ${new Date(claims.exp * 1000).toISOString()}`);
  }
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== 'number') throw new TokenRejected('token is malformed: nbf is not a number');
    if (claims.nbf > nowSeconds + CLOCK_TOLERANCE_SECONDS) {
      throw new TokenRejected(`token is not valid before ${new Date(claims.nbf * 1000).toISOString()}`);
    }
  }
  return { kid, alg };
}

interface DecodedToken {
  header: { alg?: unknown; kid?: unknown };
  payload: Record<string, unknown>;
}

function decodeToken(rawToken: string): DecodedToken {
  let decoded: ReturnType<typeof decode>;
  try {
    decoded = decode(rawToken, { complete: true, json: true });
  } catch {
    decoded = null;
  }
  if (!decoded || typeof decoded.payload !== 'object' || decoded.payload === null) {
    throw new TokenRejected('token is malformed: not a JWS compact serialisation with a JSON payload');
  }
  return { header: decoded.header, payload: decoded.payload as Record<string, unknown> };
}
