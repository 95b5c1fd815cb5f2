import type { ExecutionContext } from '@nestjs/common';
import type { Principal } from '../principal/principal';

/**
 * Decides @RequirePermissions(...keys) (e.g. the product's sign-in key and a role key, which
 * count only together); `context` gives the route, e.g. a project slug in its params.
 */
export interface PermissionChecker {
  has(principal: Principal, keys: readonly string[], context: ExecutionContext): Promise<boolean>;
}

/** Provide `{ provide: PERMISSION_CHECKER, useClass: … }` anywhere in the app; without it those routes answer 403. */
export const PERMISSION_CHECKER = Symbol('PERMISSION_CHECKER');
