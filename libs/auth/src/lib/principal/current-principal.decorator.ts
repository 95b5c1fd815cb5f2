import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal';
import { principalOf } from './request-principal';

/** The caller's verified principal; the route must carry @Authenticated(), @MachineOrAdmin() or @AdminOnly(). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = principalOf(context.switchToHttp().getRequest<object>());
  // A programming error, not the caller's: an unguarded route must not read a principal.
  if (!principal) throw new Error('@CurrentPrincipal() used on a route without @Authenticated(), @MachineOrAdmin() or @AdminOnly()');
  return principal;
});
