import type { KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Realm } from './realm.ts';
import { SUPPORTED_SCOPES } from './tokens.ts';

/** RFC 8693's grant type, as Keycloak's standard token exchange serves it at the token endpoint. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const TOKEN_EXCHANGE_PARAMETERS = ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'scope'];
/** The `gty` of exchanged tokens, so the JWT customizer gives them the requested audience. */
export const TOKEN_EXCHANGE_GTY = 'token_exchange';

/**
 * Keycloak's standard token exchange (26.2+, internal to internal): a confidential client whose
 * realm entry has `standard.token.exchange.enabled` exchanges a person's access token — one this
 * provider signed, still valid, whose `aud` names the client — for a token of the same person
 * (`sub`) whose audience is `audience`, one of the audiences the client's audience mappers make
 * available (as Keycloak allows only audiences of the requester's client scopes).
 */
export function tokenExchangeGrant(realm: Realm, issuer: string, publicKey: KeyObject) {
  return async (ctx: KoaContextWithOIDC): Promise<void> => {
    const { provider, params, client } = ctx.oidc;
    if (!client) throw new Error('the token endpoint authenticates the client before any grant');
    const requester = realm.client(client.clientId);
    if (!requester.tokenExchange) throw new errors.CustomOIDCProviderError('unauthorized_client', 'Standard token exchange is not enabled for the client');
    const { subject_token: subjectToken, subject_token_type: subjectTokenType, requested_token_type: requestedType, audience } = params;
    if (!subjectToken) throw new errors.InvalidRequest("missing required parameter 'subject_token'");
    if (subjectTokenType !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
    if (requestedType !== undefined && requestedType !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
    if (!audience) throw new errors.InvalidRequest("missing required parameter 'audience'");

    let claims: { sub?: string; aud?: string | string[] };
    try {
      ({ payload: claims } = await jwtVerify(subjectToken, publicKey, { issuer, algorithms: ['RS256'] }));
    } catch (error) {
      const reason = error instanceof joseErrors.JWTExpired ? 'expired' : 'not valid';
      throw new errors.CustomOIDCProviderError('invalid_request', `Invalid token: the subject token is ${reason}`);
    }
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    if (!audiences.includes(client.clientId)) throw new errors.CustomOIDCProviderError('access_denied', 'Client is not within the token audience');
    const person = claims.sub === undefined ? undefined : realm.person(claims.sub);
    if (!person) throw new errors.CustomOIDCProviderError('invalid_request', 'The subject token does not name a person of the realm');
    if (!requester.audiences.includes(audience)) throw new errors.InvalidTarget(`Requested audience not available: ${audience}`);

    const requested = new Set((params.scope ?? '').split(' ').filter(Boolean));
    const scope = SUPPORTED_SCOPES.filter((name) => name !== 'openid' || requested.has('openid')).join(' ');
    const accessToken = new provider.AccessToken({ accountId: person.id, client, gty: TOKEN_EXCHANGE_GTY, scope });
    accessToken.resourceServer = new provider.ResourceServer(audience, {
      audience,
      scope: SUPPORTED_SCOPES.join(' '),
      accessTokenFormat: 'jwt',
      accessTokenTTL: realm.lifetimes.accessToken,
      jwt: { sign: { alg: 'RS256' } },
    });
    ctx.oidc.entity('AccessToken', accessToken);
    ctx.body = {
      access_token: await accessToken.save(),
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: accessToken.expiration,
      scope,
    };
  };
}
