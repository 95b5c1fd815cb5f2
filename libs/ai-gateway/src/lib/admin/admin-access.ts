import { CanActivate, createParamDecorator, ExecutionContext, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import {
  can,
  ContractHttpError,
  ControlPlaneClient,
  ControlPlaneNotFoundError,
  projectsWhere,
  TokenVerifier,
  VerifiedCaller,
} from '@arbor/contract';
import { ApiError, excerpt } from '@arbor/platform';
import { MasterKeyCheck, presentedKey } from '../gateway-key.guard';

/** Who calls the admin API: the master key, or a person signed in through the suite's IdP. */
export type AdminCaller = { kind: 'master' } | { kind: 'person'; subject: string };

const ADMIN_CALLER = Symbol('arbor.admin-caller');
type WithAdminCaller = Request & { [ADMIN_CALLER]?: AdminCaller };

const PRODUCT = 'ai-gateway';
const OPERATOR = 'operator';

/** The control plane's two parts the admin API asks, present when the gateway is configured for it. */
export class ControlPlaneAccess {
  constructor(
    readonly verifier: TokenVerifier,
    readonly client: ControlPlaneClient,
  ) {}
}

/** The caller the AdminGuard let through. */
export const CurrentAdmin = createParamDecorator((_data: unknown, context: ExecutionContext): AdminCaller => {
  const caller = context.switchToHttp().getRequest<WithAdminCaller>()[ADMIN_CALLER];
  if (!caller) throw new Error('CurrentAdmin on a route without AdminGuard');
  return caller;
});

function looksLikeJwt(value: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(value);
}

const notConfigured = () =>
  new ApiError(
    503,
    'control_plane_not_configured',
    'Person sign-in is not set up on this gateway (AIGW_OIDC_ISSUER_URL, AIGW_CONTROL_PLANE_URL, AIGW_M2M_CLIENT_ID and AIGW_M2M_CLIENT_SECRET); use the master key.',
  );

/**
 * The admin API's door: the master key, or a person's OIDC token (audience `ai-gateway`). What a
 * person may do is decided per project by AdminAccess. Refusals in the platform envelope.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly master: MasterKeyCheck,
    @Optional() private readonly controlPlane?: ControlPlaneAccess,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<WithAdminCaller>();
    const presented = presentedKey(request);
    if (presented === undefined) {
      throw new ApiError(401, 'missing_credentials', 'This endpoint needs the master key or a person\'s token: send Authorization: Bearer <key or token>.');
    }
    if (this.master.isMasterKey(presented)) {
      request[ADMIN_CALLER] = { kind: 'master' };
      return true;
    }
    if (!looksLikeJwt(presented)) {
      throw new ApiError(401, 'invalid_api_key', 'The key is not the master key, and virtual keys may not manage keys.', undefined, {
        'WWW-Authenticate': 'Bearer realm="ai-gateway", error="invalid_token"',
      });
    }
    if (!this.controlPlane) throw notConfigured();
    let caller: VerifiedCaller;
    try {
      caller = await this.controlPlane.verifier.verify(presented);
    } catch (error) {
      if (error instanceof ContractHttpError) throw new ApiError(error.getStatus(), error.code, error.message, undefined, error.headers);
      throw error;
    }
    if (caller.kind !== 'person') throw new ApiError(403, 'forbidden', 'Machine clients may not manage keys; a person with ai-gateway.operator or the master key may.');
    request[ADMIN_CALLER] = { kind: 'person', subject: caller.subject };
    return true;
  }
}

/**
 * Which projects an admin caller may manage keys of: the master key all, a person those where the
 * control plane grants `ai-gateway.operator` (with the `ai-gateway` sign-in key), asked through
 * @arbor/contract (cached per the control plane's max-age). Fails closed: no answer, no access.
 */
@Injectable()
export class AdminAccess {
  constructor(@Optional() private readonly controlPlane?: ControlPlaneAccess) {}

  /** Throws 403 (or 503 when the control plane cannot answer) unless the caller operates `project`. */
  async assertOperator(caller: AdminCaller, project: string): Promise<void> {
    if (caller.kind === 'master') return;
    const client = this.client();
    let permissions: string[];
    try {
      const answer = await client.effectivePermissions({ subject: caller.subject, project });
      if (answer.source === 'unavailable') throw unavailable();
      permissions = answer.permissions;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // A project the control plane does not know, or a person who never signed in: nothing to operate.
      if (error instanceof ControlPlaneNotFoundError) permissions = [];
      else throw unavailable();
    }
    if (!can(permissions, PRODUCT, OPERATOR)) {
      throw new ApiError(403, 'forbidden', `Managing keys of project "${excerpt(project)}" needs the permission ${PRODUCT}.${OPERATOR} on it.`);
    }
  }

  /** The projects the caller operates; 'all' for the master key and workspace-wide operators. */
  async operatedProjects(caller: AdminCaller): Promise<'all' | string[]> {
    if (caller.kind === 'master') return 'all';
    let view;
    try {
      view = await this.client().groupedPermissions({ subject: caller.subject });
    } catch (error) {
      if (error instanceof ControlPlaneNotFoundError) return [];
      throw unavailable();
    }
    if (view.source === 'unavailable') throw unavailable();
    return projectsWhere(view, PRODUCT, OPERATOR);
  }

  private client(): ControlPlaneClient {
    if (!this.controlPlane) throw notConfigured();
    return this.controlPlane.client;
  }
}

const unavailable = () =>
  new ApiError(503, 'control_plane_unavailable', 'Permissions cannot be checked right now (the control plane is unreachable); try again shortly, or use the master key.');
