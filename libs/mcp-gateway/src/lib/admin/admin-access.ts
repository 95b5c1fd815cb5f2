import { CanActivate, createParamDecorator, ExecutionContext, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import { ContractHttpError, ControlPlaneClient, ControlPlaneNotFoundError, projectsWhere, TokenVerifier, VerifiedCaller } from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { McpAdminSettings } from './admin-settings';

/** A person signed in through the suite's IdP; the admin API serves nobody else. */
export interface McpAdminCaller {
  subject: string;
}

const ADMIN_CALLER = Symbol('arbor.mcp-admin-caller');
type WithAdminCaller = Request & { [ADMIN_CALLER]?: McpAdminCaller };

const PRODUCT = 'mcp-gateway';
const OPERATOR = 'operator';

/** The control plane's two parts the admin API asks; absent when a setting is missing. */
export class McpControlPlaneAccess {
  constructor(
    readonly verifier: TokenVerifier,
    readonly client: ControlPlaneClient,
    /** MCPGW_OIDC_ISSUER_URL: the identity provider persons sign in with. */
    readonly issuer?: string,
  ) {}
}

export const CurrentMcpAdmin = createParamDecorator((_data: unknown, context: ExecutionContext): McpAdminCaller => {
  const caller = context.switchToHttp().getRequest<WithAdminCaller>()[ADMIN_CALLER];
  if (!caller) throw new Error('CurrentMcpAdmin on a route without McpAdminGuard');
  return caller;
});

const bearer = (request: Request): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/**
 * The admin API's door: a person's OIDC token (audience MCPGW_OIDC_AUDIENCE). What the person may
 * do is decided by McpAdminAccess. Refusals in the platform envelope.
 */
@Injectable()
export class McpAdminGuard implements CanActivate {
  constructor(
    private readonly settings: McpAdminSettings,
    @Optional() private readonly controlPlane?: McpControlPlaneAccess,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<WithAdminCaller>();
    const token = bearer(request);
    if (token === undefined) throw new ApiError(401, 'missing_credentials', "This endpoint needs a person's token: send Authorization: Bearer <token>.");
    if (!this.controlPlane) throw notConfigured(this.settings.missingControlPlaneSettings);
    let caller: VerifiedCaller;
    try {
      caller = await this.controlPlane.verifier.verify(token);
    } catch (error) {
      if (error instanceof ContractHttpError) throw new ApiError(error.getStatus(), error.code, error.message, undefined, error.headers);
      throw error;
    }
    if (caller.kind !== 'person') throw new ApiError(403, 'forbidden', 'Machine clients may not manage the MCP gateway; a person with mcp-gateway.operator may.');
    request[ADMIN_CALLER] = { subject: caller.subject };
    return true;
  }
}

/**
 * What a person may manage, asked of the control plane through @arbor/contract (cached per its
 * max-age): `mcp-gateway.operator` (with the `mcp-gateway` sign-in key) on a server's project for
 * that server, at workspace level for upstreams, which every project shares. Fails closed.
 */
@Injectable()
export class McpAdminAccess {
  constructor(
    private readonly settings: McpAdminSettings,
    @Optional() private readonly controlPlane?: McpControlPlaneAccess,
  ) {}

  /** Throws 403 (503 when the control plane cannot answer) unless the caller operates `project`. */
  async assertProjectOperator(caller: McpAdminCaller, project: string, action: string): Promise<void> {
    const operated = await this.operatedProjects(caller);
    if (operated !== 'all' && !operated.includes(project)) {
      throw new ApiError(403, 'forbidden', `${action} needs the permission ${PRODUCT}.${OPERATOR} on project "${excerpt(project)}".`);
    }
  }

  /** Throws 403 unless the caller is an operator for the whole workspace. */
  async assertWorkspaceOperator(caller: McpAdminCaller, action: string): Promise<void> {
    if ((await this.operatedProjects(caller)) !== 'all') {
      throw new ApiError(403, 'forbidden', `${action} needs the permission ${PRODUCT}.${OPERATOR} at workspace level (upstreams are shared by every project).`);
    }
  }

  /** Throws 403 unless the caller operates at least one project (or the workspace). */
  async assertSomeOperator(caller: McpAdminCaller, action: string): Promise<'all' | string[]> {
    const operated = await this.operatedProjects(caller);
    if (operated !== 'all' && operated.length === 0) throw new ApiError(403, 'forbidden', `${action} needs the permission ${PRODUCT}.${OPERATOR} on a project or the workspace.`);
    return operated;
  }

  /** The projects the caller operates; 'all' for workspace-wide operators. */
  async operatedProjects(caller: McpAdminCaller): Promise<'all' | string[]> {
    if (!this.controlPlane) throw notConfigured(this.settings.missingControlPlaneSettings);
    let view;
    try {
      view = await this.controlPlane.client.groupedPermissions({ subject: caller.subject });
    } catch (error) {
      // A person who never signed in to the control plane: nothing to operate.
      if (error instanceof ControlPlaneNotFoundError) return [];
      throw unavailable();
    }
    if (view.source === 'unavailable') throw unavailable();
    return projectsWhere(view, PRODUCT, OPERATOR);
  }
}

const notConfigured = (missing: readonly string[]) =>
  new ApiError(
    503,
    'control_plane_not_configured',
    `The admin API needs person sign-in through the control plane, and this gateway lacks ${missing.join(', ')}.`,
    { missing_settings: [...missing] },
  );

const unavailable = () => new ApiError(503, 'control_plane_unavailable', 'Permissions cannot be checked right now (the control plane is unreachable); try again shortly.');
