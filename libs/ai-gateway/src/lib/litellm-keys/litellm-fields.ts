import { ApiError, excerpt } from '@arbor/platform';

/** 400 unsupported_field for each of `names` given a value other than LiteLLM's default, with `reason`. */
export function refuseGiven(query: object, names: readonly string[], reason: string): void {
  const given = names.filter((name) => !isDefault((query as Record<string, unknown>)[name]));
  if (given.length > 0) throw new ApiError(400, 'unsupported_field', `${given.join(', ')}: ${reason}.`, { fields: Object.fromEntries(given.map((name) => [name, [reason]])) });
}

/** LiteLLM's default of a field: absent, null, false, 0, empty, or key_type "default". */
export function isDefault(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '' || value === 'default') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** 403 unless `project` is among the caller's permitted projects (`'all'`: every one). */
export function requirePermitted(permitted: 'all' | readonly string[], project: string, role: string): void {
  if (permitted !== 'all' && !permitted.includes(project)) throw new ApiError(403, 'forbidden', `This needs the permission ${role} on project "${excerpt(project)}".`);
}
