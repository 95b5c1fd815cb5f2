import type { Principal } from './principal';

/** Principals this library verified, by request: whatever else writes `request.user` is never trusted. */
const verifiedPrincipals = new WeakMap<object, Principal>();

export function attachPrincipal(request: object, principal: Principal): void {
  verifiedPrincipals.set(request, principal);
  (request as { user?: Principal }).user = principal;
}

/** The verified principal of a request, or undefined when no auth guard ran on it. */
export function principalOf(request: object): Principal | undefined {
  return verifiedPrincipals.get(request);
}
