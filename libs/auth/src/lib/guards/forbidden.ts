import type { ExecutionContext } from '@nestjs/common';
import { ApiError } from '@arbor/platform';
import type { Principal } from '../principal/principal';
import { principalOf } from '../principal/request-principal';

export function forbidden(message: string): ApiError {
  return new ApiError(403, 'forbidden', message);
}

/** The principal BearerAuthGuard attached; the decorators always run that guard first. */
export function requiredPrincipal(context: ExecutionContext): Principal {
  const principal = principalOf(context.switchToHttp().getRequest<object>());
  if (!principal) throw new Error('an authorisation guard ran without BearerAuthGuard before it');
  return principal;
}
