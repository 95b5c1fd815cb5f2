import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import type { VerifiedCaller } from '../identity/token-verifier';
import { formatPermissionKey } from '../permissions/permission-keys';
import { GuardedRequest, REQUIRED_PERMISSION, RequirePermissionOptions, RouteRequirement } from './control-plane.options';
import { PermissionGuard } from './permission.guard';

/**
 * Lets a request through only when the caller holds `product` (and `product.<role>` for one of
 * `roles`, when given) on the project of the route, or workspace-wide for a route without one.
 * `options.project` says where else the project is (body, query, a resolver, or `'any'` for a
 * list). Needs ControlPlaneModule.
 */
export function RequirePermission(product: string, roles?: string | readonly string[], options: RequirePermissionOptions = {}): MethodDecorator & ClassDecorator {
  const list = roles === undefined ? [] : typeof roles === 'string' ? [roles] : [...roles];
  // Refuses a malformed key when the class is declared.
  formatPermissionKey(product);
  for (const role of list) formatPermissionKey(product, role);
  const requirement: RouteRequirement = {
    product,
    ...(list.length > 0 ? { role: list[0] } : {}),
    roles: Object.freeze(list),
    ...(options.project !== undefined ? { project: options.project } : {}),
  };
  return applyDecorators(SetMetadata(REQUIRED_PERMISSION, requirement), UseGuards(PermissionGuard));
}

/** The verified caller of a route guarded by RequirePermission (or served by this package); absent for an own credential. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): VerifiedCaller | undefined => {
  return context.switchToHttp().getRequest<GuardedRequest>().controlPlaneCaller;
});

/** The permission keys the guard got for a person on this route's project. */
export const CurrentPermissions = createParamDecorator((_data: unknown, context: ExecutionContext): string[] | undefined => {
  return context.switchToHttp().getRequest<GuardedRequest>().controlPlanePermissions;
});

/**
 * Where the route's requirement holds for this caller: `'all'` (workspace-wide, or your own
 * credential) or the project slugs. Set on `project: 'any'` routes; `'all'` for an own credential.
 */
export const PermittedProjects = createParamDecorator((_data: unknown, context: ExecutionContext): 'all' | string[] => {
  const projects = context.switchToHttp().getRequest<GuardedRequest>().controlPlaneProjects;
  if (projects === undefined) throw new Error("@PermittedProjects() on a route without @RequirePermission(…, { project: 'any' })");
  return projects;
});
