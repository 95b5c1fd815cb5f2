import type { IncomingMessage } from 'node:http';
import type { Type } from '@nestjs/common';
import type { VerifiedCaller } from '../identity/token-verifier';
import type { ControlPlaneClientOptions } from '../client/control-plane-client.types';

/** What a route asks for: the product's sign-in key, and one of `roles` in it when any are given. */
export interface PermissionRequirement {
  product: string;
  /** The first of `roles` (the only one, usually); absent when the sign-in key is enough. */
  role?: string;
  /** Any one of these roles counts (e.g. `['viewer', 'operator']` for reading); empty when the sign-in key is enough. */
  roles: readonly string[];
}

/** The project a guarded request is about; null for a workspace-level route. */
export type RouteProject = { slug: string } | { id: string } | null;

/**
 * Finds the project of a request that does not name it in its route: e.g. the project of the
 * resource `:id` names (a key, a server). Provide it in one of your modules; throwing (a 404 for
 * an unknown resource) answers the request with that error.
 */
export interface ProjectResolver {
  projectOf(request: GuardedRequest): RouteProject | Promise<RouteProject>;
}

/**
 * Where `@RequirePermission` finds the project, when not in the route parameters:
 * - a function of the request (the body or the query: the body is parsed before guards run);
 * - a class implementing ProjectResolver, provided in one of your modules;
 * - `'any'`: a route over several projects (a list): it passes when the role counts anywhere,
 *   and `@PermittedProjects()` names where (`'all'`, or the project slugs).
 */
export type ProjectLocator = 'any' | ((request: GuardedRequest) => RouteProject | Promise<RouteProject>) | Type<ProjectResolver>;

export interface RequirePermissionOptions {
  project?: ProjectLocator;
}

/** Decides a machine caller (a client-credentials token) on a guarded route. */
export type MachineAuthorizer = (caller: VerifiedCaller, requirement: PermissionRequirement, project: RouteProject, request: IncomingMessage) => boolean | Promise<boolean>;

/**
 * Decides a credential of your product's own that is no suite token (a master key, say), before
 * any token is looked at: `true` lets the request through with every project permitted, `false`
 * goes on with the bearer token. Throw to refuse with your own error.
 */
export type OwnCredentialAuthorizer = (request: IncomingMessage, requirement: PermissionRequirement) => boolean | Promise<boolean>;

export interface ControlPlaneModuleOptions extends ControlPlaneClientOptions {
  /** Your product's own audience (e.g. `ai-gateway`): tokens on guarded routes must carry it. Verified with `issuer`'s keys. */
  audience: string;
  /** The issuer's JWKS for verifying callers; discovered from `issuer` when absent. */
  jwksUri?: string;
  /** Route parameters that carry a project slug, in order of preference. Default `['project', 'slug']`. */
  projectSlugParams?: string[];
  /** Route parameters that carry a project id. Default `['projectId', 'id']`. Slug parameters win when both are present. */
  projectIdParams?: string[];
  /**
   * Machine callers are not persons: the control plane has no permissions for them. Your product
   * decides (e.g. by client id). Default: every machine caller is refused with 403.
   */
  authorizeMachine?: MachineAuthorizer;
  /** See OwnCredentialAuthorizer. Default: none, every request needs a suite token. */
  authorizeOwnCredential?: OwnCredentialAuthorizer;
}

/** `ControlPlaneModule.notConfigured()`: your product runs without the suite; persons get a 503 saying why. */
export interface ControlPlaneNotConfiguredOptions {
  /** Told to persons who present a token, e.g. which settings are missing. */
  message: string;
  /** Added to the error's `details`. */
  details?: Record<string, unknown>;
  authorizeOwnCredential?: OwnCredentialAuthorizer;
}

export const CONTROL_PLANE_OPTIONS = Symbol('CONTROL_PLANE_OPTIONS');
export const CALLER_VERIFIER = Symbol('CONTROL_PLANE_CALLER_VERIFIER');
export const CONTROL_PLANE_NOT_CONFIGURED = Symbol('CONTROL_PLANE_NOT_CONFIGURED');
export const REQUIRED_PERMISSION = 'arbor:contract:required-permission';

/** What `@RequirePermission` stores on a route. */
export interface RouteRequirement extends PermissionRequirement {
  project?: ProjectLocator;
}

/** What the guard leaves on the request for handlers (see CurrentCaller, CurrentPermissions, PermittedProjects). */
export interface GuardedRequest extends IncomingMessage {
  controlPlaneCaller?: VerifiedCaller;
  controlPlanePermissions?: string[];
  /** Where the requirement holds: set on `project: 'any'` routes and for an accepted own credential (`'all'`). */
  controlPlaneProjects?: 'all' | string[];
  params?: Record<string, string | undefined>;
  query?: Record<string, unknown>;
  body?: unknown;
}
