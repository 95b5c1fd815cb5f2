import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import type { VerifiedCaller } from '../auth/token-verifier';
import { formatPermissionKey } from '../permissions/permission-keys';
import { GuardedRequest, PermissionRequirement, REQUIRED_PERMISSION } from './control-plane.options';
import { PermissionGuard } from './permission.guard';

/**
 * Lets a request through only when the caller holds `product` (and `product.role` when given) on
 * the project of the route, or workspace-wide for a route without one. Needs ControlPlaneModule.
 */
export function RequirePermission(product: string, role?: string): MethodDecorator & ClassDecorator {
  formatPermissionKey(product, role); // refuses a malformed key when the class is declared
  const requirement: PermissionRequirement = role === undefined ? { product } : { product, role };
  return applyDecorators(SetMetadata(REQUIRED_PERMISSION, requirement), UseGuards(PermissionGuard));
}

/** The verified caller of a route guarded by RequirePermission (or served by this package). */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): VerifiedCaller | undefined => {
  return context.switchToHttp().getRequest<GuardedRequest>().controlPlaneCaller;
});

/** The permission keys the guard got for a person on this route's project. */
export const CurrentPermissions = createParamDecorator((_data: unknown, context: ExecutionContext): string[] | undefined => {
  return context.switchToHttp().getRequest<GuardedRequest>().controlPlanePermissions;
});
