import type { Principal } from './principal';

/**
 * Grants administration beyond the realm role (the control plane keeps its own administrators).
 * Asked on every authenticated request whose token lacks the realm role, so answer from a cache.
 */
export interface AdminResolver {
  isAdmin(principal: Principal): Promise<boolean> | boolean;
}

/** Provide `{ provide: ADMIN_RESOLVER, useClass: … }` anywhere in the app; without it only the realm role counts. */
export const ADMIN_RESOLVER = Symbol('ADMIN_RESOLVER');
