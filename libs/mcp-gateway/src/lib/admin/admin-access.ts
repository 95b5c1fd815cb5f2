import { Injectable } from '@nestjs/common';
import type { ControlPlaneClient, GuardedRequest, ProjectResolver, RouteProject, TokenVerifier } from '@arbor/contract';
import { RegistryStore } from '../registry/registry-store';

/** The product key of this gateway in the control plane's permission keys. */
export const MCP_GATEWAY = 'mcp-gateway';
/** Manages the gateway: upstreams at workspace level, a project's virtual servers and API keys. */
export const OPERATOR = 'operator';
/** Reads what operators manage (upstreams, a project's virtual servers, API keys, tool-call counts), never a secret; operators may too. */
export const READERS = ['viewer', 'operator'] as const;

/** The control plane's parts the MCP endpoints' access policy asks; absent when a setting is missing. */
export class McpControlPlaneAccess {
  constructor(
    readonly verifier: TokenVerifier,
    readonly client: ControlPlaneClient,
    /** MCPGW_OIDC_ISSUER_URL: the identity provider persons sign in with. */
    readonly issuer?: string,
  ) {}
}

/** The project of the virtual server named by the route's `:id` (404 for an unknown server). */
@Injectable()
export class ServerProject implements ProjectResolver {
  constructor(private readonly store: RegistryStore) {}

  async projectOf(request: GuardedRequest): Promise<RouteProject> {
    return { slug: (await this.store.server(request.params?.['id'] ?? '')).project };
  }
}
