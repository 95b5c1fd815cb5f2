import { callerFromClaims, VerifiedCaller } from '@arbor/contract';

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

/** Reads the principal from verified claims; `isAdmin` here reflects the realm role only. Throws TokenRejected without a subject. */
export function principalFromClaims(claims: TokenClaims): Principal {
  return principalOfCaller(callerFromClaims({ ...claims }));
}

/** The principal of a caller the suite's verifier accepted (who it is, and its realm roles). */
export function principalOfCaller(caller: VerifiedCaller): Principal {
  const { claims } = caller;
  const realmAccess = claims['realm_access'] as { roles?: unknown } | undefined;
  const roles = Array.isArray(realmAccess?.roles) ? realmAccess.roles.filter((role): role is string => typeof role === 'string') : [];
  return {
    kind: caller.kind,
    subject: caller.subject,
    ...optional('email', stringClaim(claims, 'email')),
    ...optional('name', stringClaim(claims, 'name')),
    ...optional('username', stringClaim(claims, 'preferred_username')),
    roles: Object.freeze(roles),
    ...optional('clientId', caller.clientId),
    isAdmin: roles.includes(ADMIN_ROLE),
    claims: caller.claims,
  };
}

function stringClaim(claims: TokenClaims, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
