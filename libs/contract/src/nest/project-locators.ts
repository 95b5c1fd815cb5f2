import type { GuardedRequest, RouteProject } from './control-plane.options';

/**
 * `@RequirePermission(…, { project: projectInBody() })`: the project slug a JSON body names (the
 * body is parsed before guards run, validated after them). A body without one is asked about at
 * workspace level, so only a workspace-wide role passes with it.
 */
export function projectInBody(field = 'project'): (request: GuardedRequest) => RouteProject {
  return (request) => slugOf((request.body as Record<string, unknown> | undefined)?.[field]);
}

/** `@RequirePermission(…, { project: projectInQuery() })`: the project slug of `?project=`. */
export function projectInQuery(parameter = 'project'): (request: GuardedRequest) => RouteProject {
  return (request) => slugOf(request.query?.[parameter]);
}

function slugOf(value: unknown): RouteProject {
  return typeof value === 'string' && value !== '' ? { slug: value } : null;
}
