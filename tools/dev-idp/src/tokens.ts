import { errors, type IssuedToken, type KoaContextWithOIDC, type ResourceServerInfo, type StructuredToken } from 'oidc-provider';
import type { Realm, RealmUser } from './realm.ts';
import { TOKEN_EXCHANGE_GTY } from './token-exchange.ts';

/**
 * oidc-provider issues JWT access tokens only for a resource server (RFC 8707), so every client
 * gets this one; the audiences come from the client's audience mappers in the realm export.
 */
export const ACCESS_TOKEN_RESOURCE = 'urn:arbor:dev-idp:access-token';

/** The scopes this provider knows; Keycloak adds profile and email to every person's token. */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'email'];

/** The profile and e-mail claims of a person, named as Keycloak names them. */
export function personClaims(person: RealmUser): Record<string, unknown> {
  const name = [person.firstName, person.lastName].filter(Boolean).join(' ');
  return {
    preferred_username: person.username,
    email: person.email,
    email_verified: person.emailVerified,
    name: name || undefined,
    given_name: person.firstName,
    family_name: person.lastName,
  };
}

export function resourceServerInfo(realm: Realm, clientId: string): ResourceServerInfo {
  const { audiences } = realm.client(clientId);
  if (audiences.length === 0) throw new errors.InvalidTarget(`client ${clientId} has no audience mapper`);
  return {
    scope: SUPPORTED_SCOPES.join(' '),
    // A resource server has one audience; customizeAccessToken writes the full list.
    audience: audiences[0],
    accessTokenFormat: 'jwt',
    accessTokenTTL: realm.lifetimes.accessToken,
    jwt: { sign: { alg: 'RS256' } },
  };
}

/** `formats.customizers.jwt`: gives every access token the claims a Keycloak token of the same kind carries. */
export function customizeAccessToken(realm: Realm) {
  return async (_ctx: KoaContextWithOIDC, token: IssuedToken, jwt: StructuredToken): Promise<void> => {
    const { audiences } = realm.client(token.clientId);
    jwt.header = { typ: 'JWT' };
    // An exchanged token is for the one audience asked for, not the client's own.
    const exchangedFor = token.gty === TOKEN_EXCHANGE_GTY ? token.resourceServer?.audience : undefined;
    Object.assign(jwt.payload, {
      aud: exchangedFor ?? (audiences.length === 1 ? audiences[0] : audiences),
      azp: token.clientId,
      typ: 'Bearer',
    });
    if (token.accountId !== undefined) {
      const person = realm.person(token.accountId);
      if (!person) throw new Error(`account ${token.accountId} is not a person in realm ${realm.name}`);
      // Keycloak names the client of a person's token in azp only; client_id marks a service account.
      delete jwt.payload['client_id'];
      Object.assign(jwt.payload, personClaims(person), { realm_access: { roles: person.realmRoles } });
    } else {
      const serviceAccount = realm.serviceAccount(token.clientId);
      Object.assign(jwt.payload, {
        sub: serviceAccount.id,
        preferred_username: serviceAccount.username,
        email_verified: false,
        realm_access: { roles: serviceAccount.realmRoles },
      });
    }
  };
}

/**
 * The resource owner password grant, as Keycloak's "direct access grants": a person's tokens for
 * scripts and tests, without a browser. Only clients whose realm entry enables it may use it.
 */
export function passwordGrant(realm: Realm) {
  return async (ctx: KoaContextWithOIDC): Promise<void> => {
    const { provider, params, client } = ctx.oidc;
    if (!client) throw new Error('the token endpoint authenticates the client before any grant');
    const { username, password } = params;
    if (!username) throw new errors.InvalidRequest("missing required parameter 'username'");
    if (!password) throw new errors.InvalidRequest("missing required parameter 'password'");

    const person = realm.authenticate(username, password);
    if (!person) throw new errors.CustomOIDCProviderError('invalid_grant', 'Invalid user credentials');

    const requested = new Set((params.scope ?? '').split(' '));
    const scope = SUPPORTED_SCOPES.filter((name) => name !== 'openid' || requested.has('openid')).join(' ');

    const accessToken = new provider.AccessToken({ accountId: person.id, client, gty: 'password', scope });
    accessToken.resourceServer = new provider.ResourceServer(ACCESS_TOKEN_RESOURCE, resourceServerInfo(realm, client.clientId));
    ctx.oidc.entity('AccessToken', accessToken);
    const accessTokenValue = await accessToken.save();

    let idToken: string | undefined;
    if (requested.has('openid')) {
      const token = new provider.IdToken({ ...personClaims(person), sub: person.id }, { ctx });
      token.scope = scope;
      token.set('at_hash', accessTokenValue);
      idToken = await token.issue({ use: 'idtoken' });
    }

    ctx.body = {
      access_token: accessTokenValue,
      expires_in: accessToken.expiration,
      token_type: 'Bearer',
      id_token: idToken,
      scope,
    };
  };
}
