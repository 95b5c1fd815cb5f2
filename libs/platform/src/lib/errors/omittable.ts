import { ValidateIf } from 'class-validator';

/**
 * A field a PATCH body may leave out. Unlike @IsOptional(), an explicit `null` is still
 * validated (and refused), so it cannot reach a NOT NULL column.
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}
