import { UseGuards } from '@nestjs/common';
import { AdminOnlyGuard } from './admin-only.guard';
import { BearerAuthGuard } from './bearer-auth.guard';
import { MachineOrAdminGuard } from './machine-or-admin.guard';
import { permissionsGuardFor } from './permissions.guard';

type RouteDecorator = ClassDecorator & MethodDecorator;

/** Any valid bearer token (401 otherwise). Routes without an auth decorator stay public. */
export function Authenticated(): RouteDecorator {
  return UseGuards(BearerAuthGuard);
}

/** A valid token of a machine client or an administrator (401, then 403). */
export function MachineOrAdmin(): RouteDecorator {
  return UseGuards(BearerAuthGuard, MachineOrAdminGuard);
}

/** A valid token of an administrator (401, then 403 for machines and other people). */
export function AdminOnly(): RouteDecorator {
  return UseGuards(BearerAuthGuard, AdminOnlyGuard);
}

/** A valid token whose principal the app's PERMISSION_CHECKER grants `keys` (401, then 403). */
export function RequirePermissions(...keys: [string, ...string[]]): RouteDecorator {
  if (keys.length === 0 || keys.some((key) => typeof key !== 'string' || key === '')) {
    throw new Error('@RequirePermissions() needs at least one non-empty permission key');
  }
  return UseGuards(BearerAuthGuard, permissionsGuardFor(keys));
}
