import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { TokenVerifier } from '../auth/token-verifier';
import { ControlPlaneClient } from '../client/control-plane-client';
import { ControlPlaneError, ControlPlaneNotFoundError } from '../client/control-plane-client.errors';
import { ContractHttpError } from '../errors/contract-http-error';
import { can, formatPermissionKey } from '../permissions/permission-keys';
import {
  CALLER_VERIFIER,
  CONTROL_PLANE_OPTIONS,
  ControlPlaneModuleOptions,
  GuardedRequest,
  PermissionRequirement,
  REQUIRED_PERMISSION,
  RouteProject,
} from './control-plane.options';

/**
 * The guard of `@RequirePermission`: verifies the caller's token (your issuer and audience);
 * a person is asked about at the control plane by `sub`, on the project the route names; a
 * machine is decided by `authorizeMachine`. Fails closed: no answer from the control plane, no access.
 */
@Injectable()
export class PermissionGuard implements CanActivate {
  private readonly logger = new Logger('control-plane-permissions');

  constructor(
    private readonly reflector: Reflector,
    private readonly client: ControlPlaneClient,
    @Inject(CALLER_VERIFIER) private readonly verifier: TokenVerifier,
    @Inject(CONTROL_PLANE_OPTIONS) private readonly options: ControlPlaneModuleOptions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<PermissionRequirement | undefined>(REQUIRED_PERMISSION, [context.getHandler(), context.getClass()]);
    if (!requirement) return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const caller = await this.verifier.authenticate(request);
    request.controlPlaneCaller = caller;
    const project = this.projectOf(request);
    const needed = formatPermissionKey(requirement.product, requirement.role);

    if (caller.kind === 'machine') {
      if (this.options.authorizeMachine && (await this.options.authorizeMachine(caller, requirement, project, request))) return true;
      throw new ContractHttpError(403, 'forbidden', `Machine client ${caller.clientId ?? caller.subject} may not call this route (needs ${needed}).`);
    }

    let permissions: string[];
    try {
      const answer = await this.client.effectivePermissions({
        subject: caller.subject,
        ...(project && 'slug' in project ? { project: project.slug } : project ? { projectId: project.id } : {}),
      });
      if (answer.source === 'unavailable') {
        throw new ContractHttpError(503, 'control_plane_unavailable', 'Permissions cannot be checked right now (the control plane is unreachable); try again shortly.');
      }
      permissions = answer.permissions;
    } catch (error) {
      if (error instanceof ContractHttpError) throw error;
      if (error instanceof ControlPlaneNotFoundError && error.code === 'project_not_found') throw new ContractHttpError(404, 'project_not_found', 'No such project.');
      if (!(error instanceof ControlPlaneNotFoundError)) this.logger.warn(`effective permissions refused: ${error instanceof ControlPlaneError ? error.message : String(error)}`);
      // An unknown user (never signed in to the suite), or a question the control plane refused: no permissions.
      permissions = [];
    }
    request.controlPlanePermissions = permissions;
    if (can(permissions, requirement.product, requirement.role)) return true;
    const where = project ? ` on project ${'slug' in project ? project.slug : project.id}` : '';
    throw new ContractHttpError(403, 'forbidden', `This needs the permission ${needed}${requirement.role ? ` (with ${requirement.product})` : ''}${where}.`);
  }

  private projectOf(request: GuardedRequest): RouteProject {
    const params = request.params ?? {};
    for (const name of this.options.projectSlugParams ?? ['project', 'slug']) {
      const value = params[name];
      if (typeof value === 'string' && value !== '') return { slug: value };
    }
    for (const name of this.options.projectIdParams ?? ['projectId', 'id']) {
      const value = params[name];
      if (typeof value === 'string' && value !== '') return { id: value };
    }
    return null;
  }
}
