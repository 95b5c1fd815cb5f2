import type { IncomingMessage } from 'node:http';
import type { VerifiedCaller } from '../auth/token-verifier';
import type { ControlPlaneClientOptions } from '../client/control-plane-client.types';

/** What a route asks for: the product's sign-in key, and a role in it when given. */
export interface PermissionRequirement {
  product: string;
  role?: string;
}

/** The project a guarded request is about, read from its route parameters; none for a workspace-level route. */
export type RouteProject = { slug: string } | { id: string } | null;

/** Decides a machine caller (a client-credentials token) on a guarded route. */
export type MachineAuthorizer = (caller: VerifiedCaller, requirement: PermissionRequirement, project: RouteProject, request: IncomingMessage) => boolean | Promise<boolean>;

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
}

export const CONTROL_PLANE_OPTIONS = Symbol('CONTROL_PLANE_OPTIONS');
export const CALLER_VERIFIER = Symbol('CONTROL_PLANE_CALLER_VERIFIER');
export const REQUIRED_PERMISSION = 'arbor:contract:required-permission';

/** What the guard leaves on the request for handlers (see CurrentCaller, CurrentPermissions). */
export interface GuardedRequest extends IncomingMessage {
  controlPlaneCaller?: VerifiedCaller;
  controlPlanePermissions?: string[];
  params?: Record<string, string | undefined>;
}
