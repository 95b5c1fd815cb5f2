import { TokenRejected } from '../jwt/token-rejected';

/** The claims of a verified token, as the issuer sent them. */
export type TokenClaims = Readonly<Record<string, unknown>>;

/** Who is calling: a person signed in through a client, or a machine client with its own credentials. */
export interface Principal {
  readonly kind: 'person' | 'machine';
  /** `sub`; a machine token without one is named by its client id. */
  readonly subject: string;
  readonly email?: string;
  readonly name?: string;
  /** `preferred_username`. */
  readonly username?: string;
  /** Realm roles (`realm_access.roles`). */
  readonly roles: readonly string[];
  /** The client the token was issued to: `azp`, else `client_id`. */
  readonly clientId?: string;
  /** Holds the realm role `control-plane-admin`, or was granted administration through the app's ADMIN_RESOLVER. */
  readonly isAdmin: boolean;
  readonly claims: TokenClaims;
}

/** The realm role that marks the first administrators. */
export const ADMIN_ROLE = 'control-plane-admin';

/** Keycloak names the user behind every client's service account `service-account-<client>`. */
const SERVICE_ACCOUNT_PREFIX = 'service-account-';

/** Reads the principal from verified claims; `isAdmin` here reflects the realm role only. */
export function principalFromClaims(claims: TokenClaims): Principal {
  const clientId = stringClaim(claims, 'azp') ?? stringClaim(claims, 'client_id');
  const kind = isMachineToken(claims) ? 'machine' : 'person';
  const subject = stringClaim(claims, 'sub') ?? (kind === 'machine' ? clientId : undefined);
  if (subject === undefined) throw new TokenRejected('token names no subject (sub)');

  const realmAccess = claims['realm_access'] as { roles?: unknown } | undefined;
  const roles = Array.isArray(realmAccess?.roles) ? realmAccess.roles.filter((role): role is string => typeof role === 'string') : [];
  return {
    kind,
    subject,
    ...optional('email', stringClaim(claims, 'email')),
    ...optional('name', stringClaim(claims, 'name')),
    ...optional('username', stringClaim(claims, 'preferred_username')),
    roles: Object.freeze(roles),
    ...optional('clientId', clientId),
    isAdmin: roles.includes(ADMIN_ROLE),
    claims: Object.freeze({ ...claims }),
  };
}

/**
 * A client-credentials token. Keycloak: its username is `service-account-…`, and only such tokens
 * carry `client_id`. Issuers that follow RFC 9068 put `client_id` in every token, persons' too, so
 * a username that is not a service account's decides for a person before `client_id` is looked at.
 */
export function isMachineToken(claims: TokenClaims): boolean {
  const username = stringClaim(claims, 'preferred_username');
  if (username !== undefined) return username.startsWith(SERVICE_ACCOUNT_PREFIX);
  return stringClaim(claims, 'client_id') !== undefined;
}

function stringClaim(claims: TokenClaims, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
