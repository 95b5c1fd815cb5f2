// Test-only (not exported): a local OpenID Provider that serves discovery and a JWKS, and mints tokens.
import { createHmac, generateKeyPairSync, JsonWebKey, KeyObject, randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign, SignOptions } from 'jsonwebtoken';

export const REALM_PATH = '/realms/arbor';

export interface TestSigningKey {
  kid: string;
  alg: 'RS256' | 'PS256' | 'ES256';
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** What the JWKS serves for this key. */
  jwk: JsonWebKey;
}

/** A key pair and its JWK (`kid`, `use: sig`, `alg` = `announce`, or none when `announce` is null). */
export function createSigningKey(kid: string, alg: TestSigningKey['alg'], announce: string | null = alg): TestSigningKey {
  const { privateKey, publicKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk: JsonWebKey = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', ...(announce ? { alg: announce } : {}) };
  return { kid, alg, privateKey, publicKey, jwk };
}

export class FakeIdentityProvider {
  keys: TestSigningKey[] = [];
  discoveryRequests = 0;
  jwksRequests = 0;
  private server?: Server;
  private port = 0;

  /** Starts on a free port, or on `port` to come back where a stopped provider was. */
  async start(port = this.port): Promise<this> {
    const server = createServer((request, response) => {
      const send = (body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.url === `${REALM_PATH}/.well-known/openid-configuration`) {
        this.discoveryRequests += 1;
        return send({ issuer: this.issuer, jwks_uri: this.jwksUri, id_token_signing_alg_values_supported: ['RS256'] });
      }
      if (request.url === `${REALM_PATH}/protocol/openid-connect/certs`) {
        this.jwksRequests += 1;
        return send({ keys: this.keys.map((key) => key.jwk) });
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get issuer(): string {
    return `http://127.0.0.1:${this.port}${REALM_PATH}`;
  }

  get jwksUri(): string {
    return `${this.issuer}/protocol/openid-connect/certs`;
  }

  /** Claims of a person's access token for `audience`, valid for five minutes, Keycloak-shaped. */
  personClaims(audience: string | string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: this.issuer,
      aud: audience,
      sub: 'f3b1c7c2-0000-4000-8000-000000000001',
      azp: 'arbor-control-plane',
      iat: now,
      exp: now + 300,
      preferred_username: 'alice',
      email: 'alice@example.com',
      name: 'Alice Example',
      realm_access: { roles: ['default-roles-arbor'] },
      ...overrides,
    };
  }

  /** Claims of a client-credentials token as Keycloak issues them. */
  machineClaims(audience: string | string[], clientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: this.issuer,
      aud: audience,
      sub: randomUUID(),
      azp: clientId,
      client_id: clientId,
      iat: now,
      exp: now + 300,
      preferred_username: `service-account-${clientId}`,
      realm_access: { roles: ['default-roles-arbor'] },
      ...overrides,
    };
  }
}

/** Signs `claims` with `key` (its algorithm and `kid` unless told otherwise), as the issuer would. */
export function mintToken(key: TestSigningKey, claims: Record<string, unknown>, options: { alg?: SignOptions['algorithm']; kid?: string } = {}): string {
  return sign(claims, key.privateKey, { algorithm: options.alg ?? key.alg, keyid: options.kid ?? key.kid });
}

/** A token jsonwebtoken refuses to make: any header, signed by `signature` over `header.payload` (none: empty). */
export function forgeToken(header: Record<string, unknown>, claims: Record<string, unknown>, signature?: (signingInput: string) => Buffer): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${signature ? signature(signingInput).toString('base64url') : ''}`;
}

/** The classic confusion attack: HS256 with the issuer's public key (PEM) as the HMAC secret. */
export function hmacWithPublicKey(key: TestSigningKey): (signingInput: string) => Buffer {
  const pem = key.publicKey.export({ format: 'pem', type: 'spki' });
  return (signingInput) => createHmac('sha256', pem).update(signingInput).digest();
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
