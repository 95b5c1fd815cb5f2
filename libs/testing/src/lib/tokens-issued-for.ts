import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { testIssuer } from './dev-idp-tokens';

/** One request a service that trusts only tokens issued for itself was sent, let in or not. */
export interface SeenRequest {
  status: 200 | 401;
  /** The bearer token it carried, to tell it apart from a caller's own. */
  token?: string;
  claims?: JWTPayload;
}

/**
 * The check of an internal service (an MCP server, an A2A agent) that trusts only the test run's
 * identity provider and only tokens whose audience is itself (jose against the JWKS). Every
 * request it is asked about is recorded in `seen`, refused or not.
 */
export function tokensIssuedFor(audience: string): { seen: SeenRequest[]; verify(authorization: string | undefined): Promise<JWTPayload | undefined> } {
  const jwks = createRemoteJWKSet(new URL(`${testIssuer()}/protocol/openid-connect/certs`));
  const seen: SeenRequest[] = [];
  return {
    seen,
    async verify(authorization) {
      const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
      try {
        if (!token) throw new Error('no token');
        const { payload } = await jwtVerify(token, jwks, { issuer: testIssuer(), audience });
        seen.push({ status: 200, token, claims: payload });
        return payload;
      } catch {
        seen.push({ status: 401, ...(token ? { token } : {}) });
        return undefined;
      }
    },
  };
}
