import type { Type } from '@nestjs/common';

/** Where products receive project sync unless they say otherwise (the contract's path). */
export const DEFAULT_SYNC_PATH = '/api/v1/sync/control-plane/projects';

/** The control plane's machine client: the only caller the sync endpoint accepts by default. */
export const CONTROL_PLANE_CLIENT_ID = 'control-plane-m2m';

/** What a handler learns about the call besides the slugs. */
export interface ProjectSyncContext {
  /** W3C trace context of the control plane request that made the change, when the call carried one. */
  readonly traceparent?: string;
  /** The verified client that called (`azp`, else `client_id`): the control plane's machine client. */
  readonly clientId: string;
}

/**
 * Called with the slugs of projects that changed. Delivery is at least once: the same slugs may
 * come again, and calls may overlap. Re-read the named projects from the control plane (or
 * enqueue that work durably) and return; throwing makes the control plane retry later.
 */
export type ProjectsChangedHandler = (slugs: string[], context: ProjectSyncContext) => Promise<void> | void;

/** A handler class, provided in one of the product's own modules and found app-wide at start. */
export interface OnProjectsChanged {
  projectsChanged(slugs: string[], context: ProjectSyncContext): Promise<void> | void;
}

export interface ControlPlaneSyncOptions {
  /** The product's OIDC issuer; must equal the tokens' `iss` exactly. */
  issuer: string;
  /** The product's own audience (e.g. `ai-gateway`); the control plane's token must carry it in `aud`. */
  audience: string;
  /** The issuer's JWKS; read from the issuer's discovery document when absent. */
  jwksUri?: string;
  /** Absolute path of the route (default `/api/v1/sync/control-plane/projects`). */
  path?: string;
  /** The client id of the control plane's machine client (default `control-plane-m2m`); any other caller gets 403. */
  controlPlaneClientId?: string;
  /** A function, or a class implementing OnProjectsChanged that the product provides in one of its modules. */
  handler: ProjectsChangedHandler | Type<OnProjectsChanged>;
}

/** The options after defaults, as the receiver uses them. */
export interface ResolvedSyncOptions {
  path: string;
  controlPlaneClientId: string;
  handler: ProjectsChangedHandler | Type<OnProjectsChanged>;
}

export const SYNC_OPTIONS = Symbol('CONTROL_PLANE_SYNC_OPTIONS');

/** The sync route's own TokenVerifier (issuer, the product's audience). */
export const SYNC_VERIFIER = Symbol('CONTROL_PLANE_SYNC_VERIFIER');

/** A class (to be found among the app's providers), as opposed to a plain or arrow function to call. */
export function isHandlerClass(handler: ControlPlaneSyncOptions['handler']): handler is Type<OnProjectsChanged> {
  return /^class\b/.test(Function.prototype.toString.call(handler)) || typeof (handler.prototype as Partial<OnProjectsChanged> | undefined)?.projectsChanged === 'function';
}

/** Defaults applied; everything that could only fail later is refused now, one problem per line. */
export function resolveSyncOptions(options: ControlPlaneSyncOptions): { resolved: ResolvedSyncOptions; problems: string[] } {
  const resolved: ResolvedSyncOptions = {
    path: options.path ?? DEFAULT_SYNC_PATH,
    controlPlaneClientId: options.controlPlaneClientId ?? CONTROL_PLANE_CLIENT_ID,
    handler: options.handler,
  };
  const problems: string[] = [];
  // Express would read `:name`, `*` and `(` as route syntax: the path is a literal.
  if (typeof resolved.path !== 'string' || !/^\/[A-Za-z0-9._~\-/]*$/.test(resolved.path)) {
    problems.push(`path must be an absolute URL path such as ${DEFAULT_SYNC_PATH}, got ${JSON.stringify(resolved.path)}`);
  }
  if (typeof resolved.controlPlaneClientId !== 'string' || resolved.controlPlaneClientId.trim() === '') {
    problems.push('controlPlaneClientId must be a non-empty string');
  }
  if (typeof resolved.handler !== 'function') problems.push('handler must be a function or a class implementing OnProjectsChanged');
  return { resolved, problems };
}
