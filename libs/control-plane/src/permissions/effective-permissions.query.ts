import { InvalidPermissionsQuery } from './permissions.exception';

// What PostgreSQL's uuid type reads in its canonical form.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The user whose permissions are asked for: by control plane id or by OIDC subject. */
export type UserReference = { id: string; subject?: undefined } | { subject: string; id?: undefined };

/** A project by id or by slug. */
export interface ProjectReference {
  id?: string;
  slug?: string;
}

export interface EffectivePermissionsQuery {
  user: UserReference;
  /** Absent: workspace keys only (single view) or every project (grouped view). */
  project?: ProjectReference;
  grouped: boolean;
}

const PARAMETERS = ['subject', 'user_id', 'project', 'project_id', 'group'] as const;
type Parameter = (typeof PARAMETERS)[number];

/**
 * Reads GET /api/v1/permissions/effective's query by hand rather than through a DTO: the rules
 * are about combinations, and this is the hot path (no class-transformer or validator per request).
 */
export function parseEffectivePermissionsQuery(query: Record<string, unknown>): EffectivePermissionsQuery {
  const unknown = Object.keys(query).filter((name) => !(PARAMETERS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new InvalidPermissionsQuery(`Unknown query parameters: ${unknown.join(', ')}`, unknown);

  const values: Partial<Record<Parameter, string>> = {};
  for (const name of PARAMETERS) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') throw new InvalidPermissionsQuery(`${name} must be given once and not be empty`, [name]);
    values[name] = value;
  }

  const { subject, user_id: userId, project, project_id: projectId, group } = values;
  if ((subject === undefined) === (userId === undefined)) {
    throw new InvalidPermissionsQuery('Exactly one of subject and user_id must be given', ['subject', 'user_id']);
  }
  if (project !== undefined && projectId !== undefined) {
    throw new InvalidPermissionsQuery('At most one of project and project_id may be given', ['project', 'project_id']);
  }
  if (group !== undefined && group !== 'projects') {
    throw new InvalidPermissionsQuery('group accepts only the value projects', ['group']);
  }
  if (group !== undefined && (project !== undefined || projectId !== undefined)) {
    // The grouped view already holds every project; a project with it is a contradiction, not a filter.
    throw new InvalidPermissionsQuery('group=projects answers for every project and takes no project or project_id', ['group', project !== undefined ? 'project' : 'project_id']);
  }

  for (const [name, value] of [
    ['user_id', userId],
    ['project_id', projectId],
  ] as const) {
    if (value !== undefined && !isUuid(value)) throw new InvalidPermissionsQuery(`${name} must be a UUID`, [name]);
  }

  return {
    user: userId !== undefined ? { id: userId } : { subject: subject as string },
    ...(project !== undefined ? { project: { slug: project } } : projectId !== undefined ? { project: { id: projectId } } : {}),
    grouped: group !== undefined,
  };
}
