import type { IncomingMessage } from 'node:http';
import type { CredentialCaller } from '../credentials/credential-caller';

/** What a caller may reach: the ids of virtual servers (all of them for `/mcp`'s union). */
export interface McpAccessGrant {
  /** Who, for logs and per-caller session ownership: the OIDC `sub`, or `key:<id>` for an API key. */
  principal: string;
  /** Virtual server ids the caller may use. */
  servers: readonly string[];
  /**
   * A person's own bearer token as presented (absent for API keys): exchanged at the identity
   * provider for upstreams with `token_exchange` auth, never sent to an upstream itself.
   */
  personToken?: string;
}

/** Whom the credentials module authenticates an upstream call for. */
export function credentialCallerOf(grant: McpAccessGrant): CredentialCaller {
  return grant.personToken !== undefined ? { kind: 'person', subject: grant.principal, token: grant.personToken } : { kind: 'machine', principal: grant.principal };
}

/** A refusal the transports answer as it says (401 with WWW-Authenticate, 403, 503). */
export class McpAccessError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'McpAccessError';
  }
}

/**
 * Decides who may use the MCP endpoints: a person's OIDC token (audience mcp-gateway) needs the
 * `mcp-gateway` sign-in key and a role on the virtual server's project (through @arbor/contract);
 * a gateway API key is bound to one project. Throws McpAccessError. `serverId` is the virtual
 * server of `/servers/{id}/…`, or null for `/mcp`, `/sse`, `/ws` (everything the caller may see).
 */
export abstract class McpAccessPolicy {
  abstract authorize(request: IncomingMessage, serverId: string | null): Promise<McpAccessGrant>;

  /**
   * The authorization servers that issue the tokens this policy accepts, for the OAuth protected
   * resource metadata (RFC 9728) an MCP client reads to sign a person in; undefined when there is
   * none to name.
   */
  authorizationServers(): readonly string[] | undefined {
    return undefined;
  }
}
