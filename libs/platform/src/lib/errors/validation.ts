import { ValidationError, ValidationPipe } from '@nestjs/common';
import { excerpt } from '../input/input-rules';
import { ApiError } from './api-error';

/** Bad fields named in one answer; the count of the rest follows. */
const MAX_REPORTED_FIELDS = 20;

function flatten(errors: ValidationError[], parent = ''): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    // class-validator quotes the property in its messages ("property … should not exist"): the quote is an excerpt too.
    if (error.constraints) fields[path] = Object.values(error.constraints).map((problem) => quotedAsExcerpt(problem, error.property));
    Object.assign(fields, flatten(error.children ?? [], path));
  }
  return fields;
}

function quotedAsExcerpt(problem: string, property: string): string {
  const short = excerpt(property);
  return property.length === 0 || short === property ? problem : problem.split(property).join(short);
}

/** DTOs validate at the edge; a bad body answers 400 invalid_request naming every bad field. */
export function edgeValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const all = Object.entries(flatten(errors));
      // A body of 5 000 unknown keys names a few, not 5 000: an error echoes no more than an excerpt.
      const fields = Object.fromEntries(all.slice(0, MAX_REPORTED_FIELDS).map(([name, problems]) => [excerpt(name), problems.map((problem) => excerpt(problem, 300))]));
      const more = all.length > MAX_REPORTED_FIELDS ? ` and ${all.length - MAX_REPORTED_FIELDS} more` : '';
      return new ApiError(400, 'invalid_request', `Invalid ${Object.keys(fields).join(', ')}${more}`, { fields });
    },
  });
}
