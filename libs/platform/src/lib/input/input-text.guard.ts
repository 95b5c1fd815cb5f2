import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { textProblem } from './input-rules';
import { inputRefusal } from './input-limits.middleware';

/**
 * Path parameters hold only storable text (no NUL, no lone surrogate), refused with 400 naming
 * the parameter before any service or database sees them. A global guard, because guards run
 * before pipes: a route's own guard that looks its project up by `:id` would otherwise query
 * the database with the raw value. Bodies and query strings are checked earlier, by
 * inputLimitsMiddleware.
 */
@Injectable()
export class InputTextGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const params = context.switchToHttp().getRequest<Request>().params ?? {};
    for (const [name, param] of Object.entries(params as Record<string, unknown>)) {
      // A wildcard (`*path`) is the list of its segments.
      for (const text of Array.isArray(param) ? param : [param]) {
        const problem = typeof text === 'string' ? textProblem(text) : undefined;
        if (problem) throw inputRefusal({ field: name, problem });
      }
    }
    return true;
  }
}
