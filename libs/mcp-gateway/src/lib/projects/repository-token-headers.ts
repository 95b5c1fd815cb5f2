import { Injectable, Optional } from '@nestjs/common';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ControlPlaneNotFoundError } from '@arbor/contract';
import { McpControlPlaneAccess } from '../admin/admin-access';
import { ServerRegistry, UpstreamDefinition } from '../registry/server-registry';
import { REPOSITORY_TOKEN_PLACEHOLDER, UpstreamCallHeaders } from '../upstreams/per-call-headers';
import { RepositoryTokenHosts } from './repository-token-hosts';

/**
 * `{{project.repository_token}}` in an upstream's headers: the repository token of the calling
 * virtual server's project, read from the control plane (the contract's getRepositoryToken) for
 * each call and handed to that call only — so one upstream definition, say a source host's MCP
 * server, serves every project with the project's own token. Only to a host an administrator
 * approved (MCPGW_REPOSITORY_TOKEN_HOSTS), checked again here for rows written before the list
 * or by hand. Never stored, cached or logged; refusals name the project, never the token.
 */
@Injectable()
export class RepositoryTokenHeaders extends UpstreamCallHeaders {
  constructor(
    private readonly registry: ServerRegistry,
    private readonly hosts: RepositoryTokenHosts,
    @Optional() private readonly controlPlane?: McpControlPlaneAccess,
  ) {
    super();
  }

  async resolve(serverId: string | null, definition: UpstreamDefinition): Promise<Record<string, string>> {
    // Refused before the token is read: it never exists in this process for an unapproved host.
    const refusal = this.hosts.refusal(definition);
    if (refusal) throw new McpError(ErrorCode.InvalidRequest, `${refusal[0].toUpperCase()}${refusal.slice(1)}`, { code: 'repository_token_not_allowed' });
    if (serverId === null) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Upstream "${definition.name}" is called with a project's repository token: use it through a virtual server's /servers/{id}/mcp, whose project is known`,
      );
    }
    const server = this.registry.server(serverId);
    const client = this.controlPlane?.client;
    if (!server || !client) throw new McpError(ErrorCode.InternalError, `Upstream "${definition.name}" needs a project's repository token, which cannot be read here`);
    let token: string;
    try {
      const project = await client.findProject({ slug: server.project });
      if (!project) throw new ControlPlaneNotFoundError(`no project ${server.project}`, 404);
      token = (await client.getRepositoryToken(project.id)).value;
    } catch (error) {
      if (error instanceof ControlPlaneNotFoundError) {
        throw new McpError(ErrorCode.InvalidRequest, `Project "${server.project}" has no repository token in the control plane, which upstream "${definition.name}" needs`);
      }
      throw new McpError(ErrorCode.InternalError, `The repository token of project "${server.project}" cannot be read from the control plane right now`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(definition.headers)) {
      if (value.includes(REPOSITORY_TOKEN_PLACEHOLDER)) headers[name] = value.split(REPOSITORY_TOKEN_PLACEHOLDER).join(token);
    }
    return headers;
  }
}
