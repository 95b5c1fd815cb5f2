import { writeFileSync } from 'node:fs';
import { METHODS } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { DirectRoutes } from './direct-routes';
import { type RouteEntry } from './route-patterns';
import { UpgradeRoutes } from './upgrade-routes';

/**
 * Test-only: a file the service writes its route table to once it listens (off unless set). The
 * fuzz suite reads it to attack every route the service registers, not only the documented ones;
 * a file, so that no endpoint ever tells an outsider the service's routes.
 */
export const ROUTE_TABLE_VARIABLE = 'ARBOR_ROUTE_TABLE';

interface ExpressLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/** A route's methods as Express keeps them (`app.all` sets every method Node knows): `['*']` for all. */
function methodsOf(methods: Record<string, boolean>): string[] {
  const named = Object.keys(methods).filter((method) => methods[method]);
  if (named.includes('_all') || METHODS.every((method) => named.includes(method.toLowerCase()))) return ['*'];
  return named.map((method) => method.toUpperCase());
}

/**
 * An Express 5 path (`/v1/models/*id`, `/servers/:id/sse`, a middleware's `{/*splat}`) as a route
 * pattern (`/v1/models/{id*}`, `/servers/{id}/sse`, `/{splat*}`).
 */
function fromExpressPath(path: string): string {
  return path.replace(/(?:\{\/\*(\w+)\}|\/\*(\w+))$/, (_match, optional?: string, required?: string) => `/{${optional ?? required}*}`).replace(/:(\w+)/g, '{$1}');
}

/** Every route `app` registers: its Nest controllers (read from Express's router), its direct routes and its WebSocket upgrades. */
export function routeTableOf(app: INestApplication): RouteEntry[] {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: ExpressLayer[] } };
  const framework = (express.router?.stack ?? []).flatMap(({ route }) =>
    route
      ? (Array.isArray(route.path) ? route.path : [route.path]).map((path): RouteEntry => {
          return { router: 'express', methods: methodsOf(route.methods), path: fromExpressPath(path), route: path };
        })
      : [],
  );
  // Middleware applied to every route (logging, metrics) shows once, not once per module that applies it.
  const seen = new Set<string>();
  return [...framework, ...app.get(DirectRoutes).table(), ...app.get(UpgradeRoutes).table()].filter((entry) => {
    const key = JSON.stringify(entry);
    return !seen.has(key) && Boolean(seen.add(key));
  });
}

/** Writes `app`'s route table to `file` as JSON (ROUTE_TABLE_VARIABLE). */
export function writeRouteTable(app: INestApplication, file: string): void {
  writeFileSync(file, `${JSON.stringify(routeTableOf(app), null, 2)}\n`);
}
