import { TokenVerifier } from '@arbor/contract';
import { testIssuer } from '@arbor/testing';

const verifiers = new Map<string, TokenVerifier>();

/** The claims of the bearer token a product received, after checking it as a product does (the contract's verifier, its own audience). */
export async function verifiedSyncToken(authorization: string | undefined, audience: string): Promise<Readonly<Record<string, unknown>>> {
  let verifier = verifiers.get(audience);
  if (!verifier) verifiers.set(audience, (verifier = new TokenVerifier({ issuer: testIssuer(), audience })));
  return (await verifier.authenticate({ headers: { authorization } })).claims;
}

/** The trace id of a W3C traceparent. */
export function traceIdOf(traceparent: string | string[] | null | undefined): string | undefined {
  return typeof traceparent === 'string' ? /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/.exec(traceparent)?.[1] : undefined;
}
