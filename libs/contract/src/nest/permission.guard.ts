import { CanActivate, ExecutionContext, Inject, Injectable, Logger, Optional, Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { TokenVerifier, VerifiedCaller } from '../identity/token-verifier';
import { ControlPlaneClient } from '../client/control-plane-client';
import { ControlPlaneError, ControlPlaneNotFoundError } from '../client/control-plane-client.errors';
import { ContractHttpError } from '../errors/contract-http-error';
import { can, formatPermissionKey, keysForProject, PROJECT_SLUG } from '../permissions/permission-keys';
import {
  CALLER_VERIFIER,
  CONTROL_PLANE_NOT_CONFIGURED,
  CONTROL_PLANE_OPTIONS,
  ControlPlaneModuleOptions,
  ControlPlaneNotConfiguredOptions,
  GuardedRequest,
  ProjectResolver,
  REQUIRED_PERMISSION,
  RouteProject,
  RouteRequirement,
} from './control-plane.options';

/**
 * The guard of `@RequirePermission`: your own credential first (when you decide some), then the
 * caller's token (your issuer and audience); a person is asked about at the control plane by
 * `sub`, on the project the route names; a machine is decided by `authorizeMachine`. Fails
 * closed: no answer from the control plane, no access.
 */
@Injectable()
export class PermissionGuard implements CanActivate {
  private readonly logger = new Logger('control-plane-permissions');

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    @Optional() private readonly client?: ControlPlaneClient,
    @Optional() @Inject(CALLER_VERIFIER) private readonly verifier?: TokenVerifier,
    @Optional() @Inject(CONTROL_PLANE_OPTIONS) private readonly options?: ControlPlaneModuleOptions,
    @Optional() @Inject(CONTROL_PLANE_NOT_CONFIGURED) private readonly notConfigured?: ControlPlaneNotConfiguredOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<RouteRequirement | undefined>(REQUIRED_PERMISSION, [context.getHandler(), context.getClass()]);
    if (!requirement) return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const ownCredential = this.options?.authorizeOwnCredential ?? this.notConfigured?.authorizeOwnCredential;
    if (ownCredential && (await ownCredential(request, requirement))) {
      request.controlPlaneProjects = 'all';
      return true;
    }
    if (!this.client || !this.verifier || !this.options) return this.refuseUnconfigured(request);
    const caller = await this.verifier.authenticate(request);
    request.controlPlaneCaller = caller;
    if (requirement.project === 'any') return this.anyProject(request, caller, requirement);
    const permissions = await this.decide(request, caller, requirement, await this.projectOf(request, requirement));
    if (permissions) request.controlPlanePermissions = permissions;
    return true;
  }

  /**
   * The same decision on a second project of a request this guard let through (e.g. moving a
   * resource to another project needs the role there too); throws the guard's errors.
   */
  async requireOn(request: GuardedRequest, product: string, roles: string | readonly string[], project: RouteProject): Promise<void> {
    const list = typeof roles === 'string' ? [roles] : [...roles];
    const requirement: RouteRequirement = { product, ...(list.length > 0 ? { role: list[0] } : {}), roles: list };
    const caller = request.controlPlaneCaller;
    if (!caller) {
      // Only an own credential passes the guard without a caller.
      if (request.controlPlaneProjects === 'all') return;
      throw new Error('requireOn() on a request that PermissionGuard did not let through');
    }
    await this.decide(request, caller, requirement, project);
  }

  /** Lets `caller` act on `project` or throws 403: a machine by `authorizeMachine`, a person by their keys there (returned). */
  private async decide(request: GuardedRequest, caller: VerifiedCaller, requirement: RouteRequirement, project: RouteProject): Promise<string[] | undefined> {
    if (caller.kind === 'machine') {
      await this.machine(request, caller, requirement, project);
      return undefined;
    }
    const permissions = await this.permissionsOn(caller, project);
    if (holds(permissions, requirement)) return permissions;
    const where = project ? ` on project ${quotedProject('slug' in project ? project.slug : project.id)}` : ' at workspace level';
    throw new ContractHttpError(403, 'forbidden', `This needs ${describe(requirement, where)}.`);
  }

  private refuseUnconfigured(request: GuardedRequest): never {
    const authorization = request.headers.authorization;
    if (!authorization) {
      throw new ContractHttpError(401, 'missing_token', 'this endpoint needs a bearer token (Authorization: Bearer <token>)');
    }
    throw new ContractHttpError(
      503,
      'control_plane_not_configured',
      this.notConfigured?.message ?? 'This product is not connected to the control plane.',
      this.notConfigured?.details,
    );
  }

  private async machine(request: GuardedRequest, caller: VerifiedCaller, requirement: RouteRequirement, project: RouteProject): Promise<boolean> {
    if (this.options?.authorizeMachine && (await this.options.authorizeMachine(caller, requirement, project, request))) {
      if (requirement.project === 'any') request.controlPlaneProjects = 'all';
      return true;
    }
    throw new ContractHttpError(403, 'forbidden', `Machine client ${caller.clientId ?? caller.subject} may not call this route (needs ${describe(requirement)}).`);
  }

  /** A list over projects: passes when the requirement holds workspace-wide or on some project; names where. */
  private async anyProject(request: GuardedRequest, caller: VerifiedCaller, requirement: RouteRequirement): Promise<boolean> {
    if (caller.kind === 'machine') return this.machine(request, caller, requirement, null);
    const client = this.client as ControlPlaneClient;
    let permitted: 'all' | string[];
    try {
      const view = await client.groupedPermissions({ subject: caller.subject });
      if (view.source === 'unavailable') throw unavailable();
      request.controlPlanePermissions = view.workspace;
      permitted = holds(view.workspace, requirement) ? 'all' : Object.keys(view.projects).filter((slug) => holds(keysForProject(view, slug), requirement));
    } catch (error) {
      if (error instanceof ContractHttpError) throw error;
      if (!(error instanceof ControlPlaneNotFoundError)) this.logger.warn(`effective permissions refused: ${error instanceof ControlPlaneError ? error.message : String(error)}`);
      // A person unknown to the control plane: nowhere.
      permitted = [];
    }
    if (permitted !== 'all' && permitted.length === 0) throw new ContractHttpError(403, 'forbidden', `This needs ${describe(requirement, ' on a project or the workspace')}.`);
    request.controlPlaneProjects = permitted;
    return true;
  }

  private async permissionsOn(caller: VerifiedCaller, project: RouteProject): Promise<string[]> {
    const client = this.client as ControlPlaneClient;
    // A slug no project can have (a megabyte of text, say) holds no permissions: the control plane is not asked.
    if (project && 'slug' in project && !PROJECT_SLUG.test(project.slug)) return [];
    try {
      const answer = await client.effectivePermissions({
        subject: caller.subject,
        ...(project && 'slug' in project ? { project: project.slug } : project ? { projectId: project.id } : {}),
      });
      if (answer.source === 'unavailable') throw unavailable();
      return answer.permissions;
    } catch (error) {
      if (error instanceof ContractHttpError) throw error;
      if (error instanceof ControlPlaneNotFoundError && error.code === 'project_not_found') throw new ContractHttpError(404, 'project_not_found', 'No such project.');
      if (!(error instanceof ControlPlaneNotFoundError)) this.logger.warn(`effective permissions refused: ${error instanceof ControlPlaneError ? error.message : String(error)}`);
      // An unknown user (never signed in to the suite), or a question the control plane refused: no permissions.
      return [];
    }
  }

  private async projectOf(request: GuardedRequest, requirement: RouteRequirement): Promise<RouteProject> {
    const locator = requirement.project;
    if (typeof locator === 'function') {
      if (isResolverClass(locator)) return this.moduleRef.get(locator, { strict: false }).projectOf(request);
      return (locator as (request: GuardedRequest) => RouteProject | Promise<RouteProject>)(request);
    }
    const params = request.params ?? {};
    for (const name of this.options?.projectSlugParams ?? ['project', 'slug']) {
      const value = params[name];
      if (typeof value === 'string' && value !== '') return { slug: value };
    }
    for (const name of this.options?.projectIdParams ?? ['projectId', 'id']) {
      const value = params[name];
      if (typeof value === 'string' && value !== '') return { id: value };
    }
    return null;
  }
}

function isResolverClass(locator: unknown): locator is Type<ProjectResolver> {
  return typeof locator === 'function' && typeof (locator as { prototype?: { projectOf?: unknown } }).prototype?.projectOf === 'function';
}

/** The sign-in key, and one of the roles when there are any. */
function holds(keys: readonly string[], requirement: RouteRequirement): boolean {
  if (requirement.roles.length === 0) return can(keys, requirement.product);
  return requirement.roles.some((role) => can(keys, requirement.product, role));
}

/** `the permission ai-gateway.operator on project alpha (together with ai-gateway)`. */
function describe(requirement: RouteRequirement, where = ''): string {
  if (requirement.roles.length === 0) return `the permission ${requirement.product}${where}`;
  const roles = requirement.roles.map((role) => formatPermissionKey(requirement.product, role)).join(' or ');
  return `the permission ${roles}${where} (together with ${requirement.product})`;
}

/** A project as the request named it (a body may name anything): at most 64 characters of it are quoted back. */
function quotedProject(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}

const unavailable = () => new ContractHttpError(503, 'control_plane_unavailable', 'Permissions cannot be checked right now (the control plane is unreachable); try again shortly.');
