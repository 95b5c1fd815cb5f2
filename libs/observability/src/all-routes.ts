import { RequestMethod } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';

/**
 * Every route, for middleware that must see every request (trace context, request log, HTTP
 * metrics). `{/*splat}` without a leading slash also matches a global prefix's root; paths
 * excluded from the prefix are listed again because the prefixed wildcard misses them.
 * Same approach as nestjs-pino's LoggerModule.
 */
export function allRoutes(config: ApplicationConfig): { path: string; method: RequestMethod }[] {
  const excluded = config.getGlobalPrefixOptions().exclude ?? [];
  return [{ path: '{/*splat}', method: RequestMethod.ALL }, ...excluded.map(({ path, requestMethod }) => ({ path, method: requestMethod }))];
}
