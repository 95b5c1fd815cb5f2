import type { IncomingMessage } from 'node:http';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { BearerTokenVerifier } from '../jwt/bearer-token-verifier';
import { attachPrincipal, principalOf } from '../principal/request-principal';

/** Any valid bearer token; the principal lands on the request. */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly verifier: BearerTokenVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<IncomingMessage>();
    // Class- and method-level auth decorators stack this guard; verify the token once.
    if (!principalOf(request)) attachPrincipal(request, await this.verifier.authenticate(request));
    return true;
  }
}
