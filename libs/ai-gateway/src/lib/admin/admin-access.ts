import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { GuardedRequest, OwnCredentialAuthorizer, ProjectResolver, RouteProject } from '@arbor/contract';
import { ApiError, UuidParam } from '@arbor/platform';
import { MasterKeyCheck, presentedKey } from '../gateway-key.guard';
import { KeysService } from '../keys/keys.service';

/** The product key of this gateway in the control plane's permission keys. */
export const AI_GATEWAY = 'ai-gateway';
/** Manages keys of a project: create, change, block, rotate, delete. */
export const OPERATOR = 'operator';
/** Reads keys (never their secret) and spend of a project; operators may too. */
export const READERS = ['viewer', 'operator'] as const;

function looksLikeJwt(value: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(value);
}

/**
 * The admin API's own credential: the master key may do everything. A person's token goes on to
 * the control plane's permissions (@RequirePermission); anything else (a virtual key) is refused.
 */
export function masterKeyCredential(master: MasterKeyCheck): OwnCredentialAuthorizer {
  return (request: IncomingMessage) => {
    const presented = presentedKey(request);
    if (presented === undefined) {
      throw new ApiError(401, 'missing_credentials', "This endpoint needs the master key or a person's token: send Authorization: Bearer <key or token>.");
    }
    if (master.isMasterKey(presented)) return true;
    if (!looksLikeJwt(presented)) {
      throw new ApiError(401, 'invalid_api_key', 'The key is not the master key, and virtual keys may not manage keys.', undefined, {
        'WWW-Authenticate': 'Bearer realm="ai-gateway", error="invalid_token"',
      });
    }
    return false;
  };
}

/** The project of the virtual key named by the route's `:id` (404 for an unknown key, for anyone: ids are random and say nothing). */
@Injectable()
export class KeyProject implements ProjectResolver {
  private readonly uuid = new UuidParam('id');

  constructor(private readonly keys: KeysService) {}

  async projectOf(request: GuardedRequest): Promise<RouteProject> {
    const id = this.uuid.transform(request.params?.['id']);
    return { slug: (await this.keys.get(id)).project };
  }
}
