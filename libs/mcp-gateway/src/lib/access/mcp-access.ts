import type { IncomingMessage } from 'node:http';
import type { CredentialCaller } from '../credentials/credential-caller';

/** What a caller may reach: the ids of virtual servers (all of them for `/mcp`'s union). */
export interface McpAccessGrant {
  /** Who, for logs and per-caller session ownership: the OIDC `sub`, or `key:<id>` for an API key. */
  principal: string;
  /** Virtual server ids the caller may use. */
  servers: readonly string[];
  /**
   * The servers among them whose project the caller operates (the `mcp-gateway.operator` role; an
   * API key counts as its project's operators, who made it): those may use what needs that role. Absent: none.
   */
  operates?: ReadonlySet<string>;
  /** An API key scoped to tools: the only tools it sees and calls, by the names they are exposed under. Absent: every tool. */
  tools?: ReadonlySet<string>;
  /** Who, as the audit of tool calls shows them: a person (name from the token) or an API key (its name). Absent: the principal. */
  who?: { kind: 'person' | 'key'; name: string };
  /**
   * A person's own bearer token as presented (absent for API keys): exchanged at the identity
   * provider for upstreams with `token_exchange` auth, never sent to an upstream itself.
   */
  personToken?: string;
}

/** Whom an upstream call is made for: the grant's principal, with the person's token the credentials module exchanges. */
export function credentialCallerOf(grant: McpAccessGrant): CredentialCaller {
  return grant.personToken !== undefined ? { kind: 'person', principal: grant.principal, token: grant.personToken } : { kind: 'machine', principal: grant.principal };
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
  private readonly grantListeners = new Set<(principal: string, change: (grant: McpAccessGrant) => McpAccessGrant) => void>();

  abstract authorize(request: IncomingMessage, serverId: string | null): Promise<McpAccessGrant>;

  /**
   * Called when what a principal may use changed here without a request of its (an API key's tool
   * scope), with the change to apply to the grant an open session holds; returns an unsubscribe.
   */
  onGrantChange(listener: (principal: string, change: (grant: McpAccessGrant) => McpAccessGrant) => void): () => void {
    this.grantListeners.add(listener);
    return () => this.grantListeners.delete(listener);
  }

  protected grantChanged(principal: string, change: (grant: McpAccessGrant) => McpAccessGrant): void {
    for (const listener of [...this.grantListeners]) listener(principal, change);
  }

  /**
   * Who may call an A2A agent of `project` (`/agents/{name}`): the same credentials as for MCP,
   * with a role on that project. `null`: no such agent; the credentials are still checked (401
   * first, as for MCP), and the caller is let through to be told so. Throws McpAccessError.
   */
  async authorizeProject(_request: IncomingMessage, _project: string | null): Promise<CredentialCaller> {
    throw new McpAccessError(403, 'forbidden', 'This gateway serves no agents.');
  }

  /**
   * The authorization servers that issue the tokens this policy accepts, for the OAuth protected
   * resource metadata (RFC 9728) an MCP client reads to sign a person in; undefined when there is
   * none to name.
   */
  authorizationServers(): readonly string[] | undefined {
    return undefined;
  }
}
