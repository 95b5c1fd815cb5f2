import { excerpt } from '@arbor/platform';
import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingMessage } from 'node:http';
import { DataSource } from 'typeorm';
import { can, ContractHttpError, ControlPlaneNotFoundError, keysForProject, presentedCredential, rolesIn, VerifiedCaller } from '@arbor/contract';
import { McpControlPlaneAccess } from '../admin/admin-access';
import { ServerRegistry, VirtualServerDefinition } from '../registry/server-registry';
import { ApiKeyLookup } from '@arbor/api-keys';
import { MCP_API_KEYS } from './api-key-material';
import { McpAccessError, McpAccessGrant, McpAccessPolicy } from './mcp-access';
import { McpApiKey } from './mcp-api-key.entity';

const PRODUCT = 'mcp-gateway';
const REALM = 'Bearer realm="mcp-gateway"';
interface KnownKey {
  principal: string;
  project: string;
  expiresAt: number | null;
  /** The control plane deleted the key's project. */
  projectDeleted: boolean;
}

/**
 * Who may use the MCP endpoints. A person's OIDC token (audience mcp-gateway) reaches the virtual
 * servers of projects where the control plane grants the `mcp-gateway` sign-in key and a role in
 * it (workspace-level keys count on every project), asked through @arbor/contract and cached for
 * the control plane's max-age. A gateway API key reaches its own project's servers. Fails closed:
 * when the control plane cannot answer, persons get 503; keys keep working.
 */
@Injectable()
export class ContractMcpAccessPolicy extends McpAccessPolicy implements OnModuleDestroy {
  /** The gateways' one key lookup: a key deleted on another replica stops working within its few seconds. */
  private readonly keys: ApiKeyLookup<KnownKey>;
  /** The servers of each project a key was used on, until the registry changes (worked out per key call otherwise). */
  private readonly projectServers = new Map<string, string[]>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly registry: ServerRegistry,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() private readonly controlPlane?: McpControlPlaneAccess,
  ) {
    super();
    this.keys = new ApiKeyLookup({
      load: async (keyHash) => {
        const row = await this.dataSource.getRepository(McpApiKey).findOneBy({ keyHash });
        return row ? { principal: `key:${row.id}`, project: row.project, expiresAt: row.expiresAt?.getTime() ?? null, projectDeleted: row.projectDeletedAt !== null } : undefined;
      },
    });
    this.unsubscribe = registry.onChange(() => this.projectServers.clear());
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  /** Persons' tokens come from the suite's identity provider. */
  override authorizationServers(): readonly string[] | undefined {
    return this.controlPlane?.issuer ? [this.controlPlane.issuer] : undefined;
  }

  async authorize(request: IncomingMessage, serverId: string | null): Promise<McpAccessGrant> {
    const presented = credentialOf(request);
    if (!presented) {
      throw new McpAccessError(401, 'missing_credentials', "Send a person's token or a gateway API key: Authorization: Bearer <token or key>.", { 'www-authenticate': REALM });
    }
    const target = serverId === null ? null : this.registry.server(serverId);
    if (serverId !== null && !target) throw new McpAccessError(404, 'server_not_found', `No virtual server "${excerpt(serverId)}".`);
    const grant = MCP_API_KEYS.matches(presented) ? await this.keyGrant(presented) : await this.personGrant(presented, target ?? null);
    if (target && !grant.servers.includes(target.id)) {
      throw new McpAccessError(403, 'forbidden', `Using the virtual server "${target.id}" needs the ${PRODUCT} sign-in key and a role on project "${target.project}".`);
    }
    return grant;
  }

  /** Forget what is known of a key (after it was deleted here). */
  forgetKey(keyHash: string): void {
    this.keys.evict(keyHash);
  }

  private async keyGrant(presented: string): Promise<McpAccessGrant> {
    const key = await this.keys.find(presented);
    if (!key) {
      throw new McpAccessError(401, 'invalid_api_key', 'The API key is not valid (unknown or expired).', { 'www-authenticate': `${REALM}, error="invalid_token"` });
    }
    if (key.projectDeleted) {
      throw new McpAccessError(401, 'project_deleted', `The API key's project "${excerpt(key.project)}" was deleted in the control plane; its keys no longer work.`, {
        'www-authenticate': `${REALM}, error="invalid_token"`,
      });
    }
    const project = key.project;
    let servers = this.projectServers.get(project);
    if (!servers) {
      servers = this.serversOf((server) => server.project === project);
      this.projectServers.set(project, servers);
    }
    return { principal: key.principal, servers };
  }

  private async personGrant(token: string, target: VirtualServerDefinition | null): Promise<McpAccessGrant> {
    const controlPlane = this.controlPlane;
    if (!controlPlane) {
      throw new McpAccessError(
        503,
        'control_plane_not_configured',
        'Person sign-in is not set up on this gateway (MCPGW_OIDC_ISSUER_URL, MCPGW_CONTROL_PLANE_URL, MCPGW_M2M_CLIENT_ID, MCPGW_M2M_CLIENT_SECRET); use a gateway API key.',
      );
    }
    let caller: VerifiedCaller;
    try {
      caller = await controlPlane.verifier.verify(token);
    } catch (error) {
      if (error instanceof ContractHttpError) throw new McpAccessError(error.getStatus(), error.code, error.message, lowerCased(error.headers));
      throw error;
    }
    if (caller.kind !== 'person') throw new McpAccessError(403, 'forbidden', 'Machine clients use a gateway API key, not a client-credentials token.');
    const mayUse = (keys: string[]) => can(keys, PRODUCT) && rolesIn(keys, PRODUCT).length > 0;
    try {
      if (target) {
        // One project: the cheaper single view, cached per project.
        const answer = await controlPlane.client.effectivePermissions({ subject: caller.subject, project: target.project });
        if (answer.source === 'unavailable') throw unavailable();
        return { principal: caller.subject, personToken: token, servers: mayUse(answer.permissions) ? this.serversOf((s) => s.project === target.project) : [] };
      }
      const view = await controlPlane.client.groupedPermissions({ subject: caller.subject });
      if (view.source === 'unavailable') throw unavailable();
      // /mcp refuses, as /servers/{id}/mcp does, a person who may use the gateway on no project at
      // all (disabled, or never granted): an empty session would hide the reason.
      if (!mayUse(view.workspace) && !Object.keys(view.projects).some((project) => mayUse(keysForProject(view, project)))) throw mayUseNothing();
      return { principal: caller.subject, personToken: token, servers: this.serversOf((server) => mayUse(keysForProject(view, server.project))) };
    } catch (error) {
      if (error instanceof McpAccessError) throw error;
      // A person who never signed in to the suite, or a project the control plane does not know: nothing to use.
      if (error instanceof ControlPlaneNotFoundError) {
        if (!target) throw mayUseNothing();
        return { principal: caller.subject, personToken: token, servers: [] };
      }
      throw unavailable();
    }
  }

  private serversOf(predicate: (server: VirtualServerDefinition) => boolean): string[] {
    return this.registry
      .servers()
      .filter(predicate)
      .map((server) => server.id);
  }
}

/** A person's token or an API key; browsers' and the SDK's WebSocket clients cannot set headers, so the relay's upgrade may carry it in the query. */
function credentialOf(request: IncomingMessage): string | undefined {
  return presentedCredential(request, { apiKeyHeader: 'x-api-key', webSocketQueryParameter: 'access_token' });
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

const mayUseNothing = () =>
  new McpAccessError(403, 'forbidden', `Using the MCP gateway needs the ${PRODUCT} sign-in key and a role on a project (ask an administrator of the control plane).`);

const unavailable = () =>
  new McpAccessError(503, 'control_plane_unavailable', 'Permissions cannot be checked right now (the control plane is unreachable); try again shortly, or use a gateway API key.');
