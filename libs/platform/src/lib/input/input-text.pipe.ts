import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { textProblem } from './input-rules';
import { inputRefusal } from './input-limits.middleware';

/**
 * Path parameters hold only storable text (no NUL, no lone surrogate), refused with 400 naming
 * the parameter before any service or database sees them. Bodies and query strings are checked
 * earlier, by inputLimitsMiddleware.
 */
@Injectable()
export class InputTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'param') return value;
    const params: Record<string, unknown> = typeof value === 'string' ? { [metadata.data ?? 'path']: value } : (value as Record<string, unknown>);
    for (const [name, param] of Object.entries(params ?? {})) {
      const problem = typeof param === 'string' ? textProblem(param) : undefined;
      if (problem) throw inputRefusal({ field: name, problem });
    }
    return value;
  }
}
