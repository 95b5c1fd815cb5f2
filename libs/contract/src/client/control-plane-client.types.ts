import type { GroupedPermissionsView, SinglePermissionsView } from '../permissions/permission-keys';

export interface ControlPlaneClientOptions {
  /** The control plane's address, e.g. `https://cp.example.com` (paths `/api/v1/...` are added). */
  baseUrl: string;
  /** The OIDC issuer; its discovery document names the token endpoint. */
  issuer: string;
  /** The product's machine client, `<product>-m2m`; the realm gives its tokens the audience `control-plane`. */
  clientId: string;
  clientSecret: string;
  /** The token endpoint, if you would rather not use discovery. */
  tokenEndpoint?: string;
  /** Answers of effective permissions kept at most (least recently used dropped first). Default 10 000. */
  maxCacheEntries?: number;
  /**
   * Seconds past its freshness an answer may still be served while the control plane cannot be
   * reached. Default 0: fail closed, i.e. no permissions.
   */
  staleIfError?: number;
  /** Per request, in milliseconds. Default 5 000. */
  timeoutMs?: number;
  /** Replaces global fetch (tests, proxies). */
  fetch?: typeof fetch;
}

/** Who to ask about: exactly one of subject (the OIDC `sub`) or userId, at most one of project (slug) or projectId. */
export type PermissionsQuery = ({ subject: string; userId?: never } | { userId: string; subject?: never }) &
  ({ project?: string; projectId?: never } | { projectId?: string; project?: never });

/** Where an answer came from. */
export type AnswerSource =
  /** From the control plane just now (200), or renewed by it (304). */
  | 'control-plane'
  /** Within its max-age, no request made. */
  | 'cache'
  /** Past its max-age; the control plane could not be reached and staleIfError allowed it. */
  | 'stale'
  /** The control plane could not be reached and nothing usable was cached: no permissions. */
  | 'unavailable';

export interface EffectivePermissions extends SinglePermissionsView {
  source: AnswerSource;
}

export interface GroupedEffectivePermissions extends GroupedPermissionsView {
  source: AnswerSource;
}

/** A project as `GET /api/v1/projects/{id}` answers it. */
export interface ProjectRecord {
  id: string;
  slug: string;
  name: string;
  repository_count: number;
  created_at: string;
  updated_at: string;
}

/** One repository of `GET /api/v1/repositories`. */
export interface RepositoryRecord {
  id: string;
  project_id: string;
  project_slug: string;
  source_host: string;
  owner: string;
  name: string;
  full_name: string;
  branch: string;
  installation_id: string;
}

/** `GET /api/v1/projects/{id}/repository-secret/value`. Do not log `value`, do not keep it. */
export interface RepositoryToken {
  project_id: string;
  project_slug: string;
  value: string;
  updated_at: string;
}
