import { QueryFailedError } from 'typeorm';

/** PostgreSQL's unique_violation (SQLSTATE 23505) on one of the named constraints or indexes. */
export function isUniqueViolation(error: unknown, ...constraints: string[]): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && (constraints.length === 0 || constraints.includes(driverError.constraint ?? ''));
}
