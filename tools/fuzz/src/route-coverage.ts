// Which of a service's registered routes (its route table: controllers, direct routes, WebSocket
// upgrades, read from the running service) no fuzz operation reaches. A route added without
// fuzz coverage fails the suite, named; only the exclusions below may stay unfuzzed.
import { readFileSync } from 'node:fs';
import { pathPattern, type RouteEntry } from '@arbor/platform';
import type { Operation } from './openapi-operations';

/** A service's route table, from the file it wrote at start (ARBOR_ROUTE_TABLE, which the test harness sets). */
export function routeTable(file: string): RouteEntry[] {
  return JSON.parse(readFileSync(file, 'utf8')) as RouteEntry[];
}

/** A route no request can carry hostile input to, and why; the coverage test still names each. */
export interface Exclusion {
  service: string;
  method: string;
  path: string;
  why: string;
}

// Every route registered today takes input an attacker controls (a path, a query, a credential,
// a body), so none is excluded; an entry here needs its `why`.
export const EXCLUDED_ROUTES: readonly Exclusion[] = [];

/** How a failure names a route: `ai-gateway direct POST /v1/files (route /v1/files)`. */
export function routeName(service: string, entry: RouteEntry, method: string): string {
  return `${service} ${entry.router} ${method} ${entry.path}${entry.route === entry.path ? '' : ` (route ${entry.route})`}`;
}

/** An operation's path as a request would have it, each placeholder one plain segment. */
function samplePath(operation: Operation): string {
  return operation.path.replace(/\{[^}]+\}/g, 'x');
}

function reaches(operation: Operation, entry: RouteEntry, method: string): boolean {
  if ((entry.router === 'upgrade') !== (operation.upgrade === true)) return false;
  if (method !== '*' && operation.method !== method) return false;
  return pathPattern(entry.path).test(samplePath(operation));
}

/**
 * Every method of every route in `table` that no operation reaches (a route of any method, `*`,
 * is reached by an operation of any method), excluded routes aside.
 */
export function uncoveredRoutes(service: string, table: readonly RouteEntry[], operations: readonly Operation[]): string[] {
  const uncovered: string[] = [];
  for (const entry of table) {
    for (const method of entry.methods) {
      if (EXCLUDED_ROUTES.some((excluded) => excluded.service === service && excluded.method === method && excluded.path === entry.path)) continue;
      if (!operations.some((operation) => reaches(operation, entry, method))) uncovered.push(routeName(service, entry, method));
    }
  }
  return uncovered;
}

/** The excluded routes a service registers, for the test to name. */
export function excludedRoutes(service: string, table: readonly RouteEntry[]): string[] {
  return EXCLUDED_ROUTES.filter((excluded) => excluded.service === service && table.some((entry) => entry.path === excluded.path && entry.methods.includes(excluded.method))).map(
    (excluded) => `${service} ${excluded.method} ${excluded.path}: ${excluded.why}`,
  );
}
