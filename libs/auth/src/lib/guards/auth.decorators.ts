import { UseGuards } from '@nestjs/common';
import { AdminOnlyGuard } from './admin-only.guard';
import { BearerAuthGuard } from './bearer-auth.guard';
import { MachineOrAdminGuard } from './machine-or-admin.guard';

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
