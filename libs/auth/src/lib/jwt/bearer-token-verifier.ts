import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { TokenVerifier, VerifiedCaller } from '@arbor/contract';
import { AUTH_OPTIONS, AuthOptions } from '../auth-options';
import { AuthExtensions } from '../auth-extensions';
import { Principal, principalOfCaller } from '../principal/principal';

/**
 * This service's bearer tokens, verified by the suite's one verifier (`TokenVerifier` of
 * @arbor/contract: algorithm allow-list, issuer, audience, expiry, the issuer's JWKS), read as a
 * principal with the app's ADMIN_RESOLVER.
 */
@Injectable()
export class BearerTokenVerifier {
  private readonly verifier: TokenVerifier;

  constructor(
    @Inject(AUTH_OPTIONS) options: AuthOptions,
    private readonly extensions: AuthExtensions,
  ) {
    this.verifier = new TokenVerifier(options);
  }

  /** The principal of the request's bearer token; rejects with a 401 (or the admin resolver's error). */
  async authenticate(request: Pick<IncomingMessage, 'headers'>): Promise<Principal> {
    return this.principalFor(await this.verifier.authenticate(request));
  }

  private async principalFor(caller: VerifiedCaller): Promise<Principal> {
    const principal = principalOfCaller(caller);
    const resolver = this.extensions.adminResolver;
    const isAdmin = principal.isAdmin || (resolver !== undefined && (await resolver.isAdmin(principal)));
    return Object.freeze(isAdmin === principal.isAdmin ? principal : { ...principal, isAdmin });
  }
}
