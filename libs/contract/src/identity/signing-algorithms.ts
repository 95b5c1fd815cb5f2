import type { KeyObject } from 'node:crypto';

/** Asymmetric JWS algorithms only: `none` and HS* (a public key misused as an HMAC secret) never verify. */
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;

export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export function isSigningAlgorithm(alg: unknown): alg is SigningAlgorithm {
  return (SIGNING_ALGORITHMS as readonly unknown[]).includes(alg);
}

const CURVE_BY_EC_ALGORITHM: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/** RSA keys verify RS* and PS*, RSA-PSS keys only PS*, EC keys only the ES* of their curve. */
export function keyFitsAlgorithm(key: KeyObject, alg: SigningAlgorithm): boolean {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return alg.startsWith('RS') || alg.startsWith('PS');
    case 'rsa-pss':
      return alg.startsWith('PS');
    case 'ec':
      return key.asymmetricKeyDetails?.namedCurve === CURVE_BY_EC_ALGORITHM[alg];
    default:
      return false;
  }
}
