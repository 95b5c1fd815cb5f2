import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

function flatten(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) fields[path] = Object.values(error.constraints);
    Object.assign(fields, flatten(error.children ?? [], path));
  }
  return fields;
}

/** DTOs validate at the edge; a bad body answers 400 invalid_request naming every bad field. */
export function edgeValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const fields = flatten(errors);
      return new ApiError(400, 'invalid_request', `Invalid ${Object.keys(fields).join(', ')}`, { fields });
    },
  });
}
