// What a route declares it serves, and how a request is matched against it: a leaf, read by the
// routers (direct routes, upgrades) and by the route table that lists them.

/** One path (or a family of paths) a service answers, and who answers it. */
export interface RouteEntry {
  /** `express`: a Nest controller; `direct`: a DirectRoute; `upgrade`: a WebSocket UpgradeRoute. */
  router: 'express' | 'direct' | 'upgrade';
  /** Upper-case methods, or `['*']` for any (an upgrade is a `GET`). */
  methods: string[];
  /** A path pattern (see pathPattern): `/v1/files/{id}/content`, `/openai/{path*}`. */
  path: string;
  /** The route as its router names it in logs and metrics. */
  route: string;
}

/** A path a route declares it serves, with the methods it takes there (`['*']`: any). */
export interface RouteEndpoint {
  methods: readonly string[];
  /** `{name}` stands for one segment; a last `{name*}` for nothing or any further segments. */
  path: string;
}

const SEGMENT = /\{([A-Za-z_]\w*)\}/g;

/**
 * The regular expression of a route's path pattern, case-insensitive as Express routes are:
 * `{name}` one non-empty segment, a last `/{name*}` nothing or `/` and anything after it.
 */
export function pathPattern(pattern: string): RegExp {
  const rest = /\/\{[A-Za-z_]\w*\*\}$/.exec(pattern);
  const fixed = rest ? pattern.slice(0, rest.index) : pattern;
  const literal = fixed
    .split(SEGMENT)
    .map((part, index) => (index % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${literal}${rest ? '(?:/.*)?' : ''}$`, 'i');
}

/** Whether `method path` is one of `endpoints`. */
export function servesEndpoint(endpoints: readonly { methods: readonly string[]; pattern: RegExp }[], method: string, path: string): boolean {
  return endpoints.some((endpoint) => (endpoint.methods.includes('*') || endpoint.methods.includes(method)) && endpoint.pattern.test(path));
}
