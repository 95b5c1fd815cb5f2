import { testIssuer } from '@arbor/testing';
import { createRemoteJWKSet, JWTPayload, jwtVerify } from 'jose';

let keys: ReturnType<typeof createRemoteJWKSet> | undefined;

/** The claims of the bearer token a product received, after checking it as a product would: signature, issuer, its own audience. */
export async function verifiedSyncToken(authorization: string | undefined, audience: string): Promise<JWTPayload> {
  if (!keys) {
    const discovery = (await (await fetch(`${testIssuer()}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
    keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
  }
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  if (!token) throw new Error(`no bearer token in ${authorization}`);
  return (await jwtVerify(token, keys, { issuer: testIssuer(), audience })).payload;
}

/** The trace id of a W3C traceparent. */
export function traceIdOf(traceparent: string | string[] | null | undefined): string | undefined {
  return typeof traceparent === 'string' ? /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/.exec(traceparent)?.[1] : undefined;
}
