import { CanActivate, ExecutionContext, Injectable, mixin, Type } from '@nestjs/common';
import { ApiError } from '@arbor/platform';
import { AuthExtensions } from '../auth-extensions';
import { forbidden, requiredPrincipal } from './forbidden';

const guardsByKeys = new Map<string, Type<CanActivate>>();

/**
 * A guard class per key list, the keys held in its closure: nothing is read from route
 * metadata per request. Asks the app's PERMISSION_CHECKER and fails closed without one.
 */
export function permissionsGuardFor(keys: readonly string[]): Type<CanActivate> {
  const id = JSON.stringify(keys);
  const existing = guardsByKeys.get(id);
  if (existing) return existing;

  const required = Object.freeze([...keys]);
  @Injectable()
  class PermissionsGuard implements CanActivate {
    constructor(private readonly extensions: AuthExtensions) {}

    async canActivate(context: ExecutionContext): Promise<boolean> {
      const principal = requiredPrincipal(context);
      const checker = this.extensions.permissionChecker;
      if (!checker) {
        throw new ApiError(403, 'permission_checker_missing', `this endpoint requires ${required.join(', ')}, and the service has no PERMISSION_CHECKER to decide`);
      }
      if (await checker.has(principal, required, context)) return true;
      throw forbidden(`this endpoint requires the permissions ${required.join(', ')}`);
    }
  }
  const guard = mixin(PermissionsGuard);
  guardsByKeys.set(id, guard);
  return guard;
}
