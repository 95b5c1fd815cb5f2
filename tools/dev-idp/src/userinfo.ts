import { verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

const USERINFO_CLAIMS = ['sub', 'email_verified', 'name', 'preferred_username', 'given_name', 'family_name', 'email'];

export interface UserinfoOptions {
  issuer: string;
  signingKey: { kid: string; publicKey: KeyObject };
  allowedOrigins: ReadonlySet<string>;
}

/**
 * The userinfo endpoint. oidc-provider's own refuses access tokens that carry an audience, which
 * all of ours do; Keycloak accepts them, so this one checks the token itself and answers from it.
 */
export function createUserinfoHandler(options: UserinfoOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const origin = req.headers.origin;
    const cors: Record<string, string> = origin && options.allowedOrigins.has(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : {};
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...cors,
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'Authorization, Content-Type',
      });
      res.end();
      return;
    }

    const [scheme, token] = (req.headers.authorization ?? '').split(' ');
    const claims = scheme?.toLowerCase() === 'bearer' && token ? verifiedClaims(token, options) : undefined;
    if (!claims) {
      return sendJson(
        res,
        401,
        { error: 'invalid_token', error_description: 'Token verification failed' },
        { ...cors, 'www-authenticate': 'Bearer error="invalid_token", error_description="Token verification failed"' },
      );
    }
    sendJson(res, 200, Object.fromEntries(USERINFO_CLAIMS.filter((name) => name in claims).map((name) => [name, claims[name]])), cors);
  };
}

function verifiedClaims(token: string, { issuer, signingKey }: UserinfoOptions): Record<string, unknown> | undefined {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return undefined;
  try {
    const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string; kid?: string };
    if (alg !== 'RS256' || kid !== signingKey.kid) return undefined;
    if (!verify('sha256', Buffer.from(`${header}.${payload}`), signingKey.publicKey, Buffer.from(signature, 'base64url'))) {
      return undefined;
    }
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const expired = typeof claims['exp'] !== 'number' || claims['exp'] <= Date.now() / 1000;
    return claims['iss'] === issuer && !expired ? claims : undefined;
  } catch {
    return undefined;
  }
}
