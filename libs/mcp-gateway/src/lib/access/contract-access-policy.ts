import { excerpt } from '@arbor/platform';
import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingMessage } from 'node:http';
import { DataSource } from 'typeorm';
import { can, ContractHttpError, ControlPlaneNotFoundError, keysForProject, presentedCredential, rolesIn, VerifiedCaller } from '@arbor/contract';
import { McpControlPlaneAccess, OPERATOR } from '../admin/admin-access';
import type { CredentialCaller } from '../credentials/credential-caller';
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
  name: string;
  /** Its tool scope; absent: every tool. */
  tools?: ReadonlySet<string>;
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
  private readonly projectServers = new Map<string, { servers: string[]; operates: ReadonlySet<string> }>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly registry: ServerRegistry,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() private readonly controlPlane?: McpControlPlaneAccess,
  ) {
    super();
    this.keys = new ApiKeyLookup<KnownKey>({
      load: async (keyHash) => {
        const row = await this.dataSource.getRepository(McpApiKey).findOneBy({ keyHash });
        return row
          ? {
              principal: `key:${row.id}`,
              project: row.project,
              name: row.name,
              ...(row.tools ? { tools: new Set(row.tools) } : {}),
              expiresAt: row.expiresAt?.getTime() ?? null,
              projectDeleted: row.projectDeletedAt !== null,
            }
          : undefined;
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

  override async authorizeProject(request: IncomingMessage, project: string | null): Promise<CredentialCaller> {
    const presented = credentialOf(request);
    if (!presented) {
      throw new McpAccessError(401, 'missing_credentials', "Send a person's token or a gateway API key: Authorization: Bearer <token or key>.", { 'www-authenticate': REALM });
    }
    if (MCP_API_KEYS.matches(presented)) {
      const key = await this.knownKey(presented);
      if (project !== null && key.project !== project) throw forbiddenOn(project);
      return { kind: 'machine', principal: key.principal };
    }
    const controlPlane = this.requireControlPlane();
    const caller = await this.verified(controlPlane, presented);
    // The person's own token, for the credentials module to exchange; never sent to the agent.
    const person: CredentialCaller = { kind: 'person', principal: caller.subject, token: presented };
    if (project === null) return person;
    let permissions: string[];
    try {
      const answer = await controlPlane.client.effectivePermissions({ subject: caller.subject, project });
      if (answer.source === 'unavailable') throw unavailable();
      permissions = answer.permissions;
    } catch (error) {
      if (error instanceof McpAccessError) throw error;
      if (error instanceof ControlPlaneNotFoundError) throw forbiddenOn(project);
      throw unavailable();
    }
    if (!(can(permissions, PRODUCT) && rolesIn(permissions, PRODUCT).length > 0)) throw forbiddenOn(project);
    return person;
  }

  /** Forget what is known of a key (after it was deleted here). */
  forgetKey(keyHash: string): void {
    this.keys.evict(keyHash);
  }

  /** A key's tool scope changed here: forget it, and give open sessions of the key the new scope. */
  keyScopeChanged(key: McpApiKey): void {
    this.keys.evict(key.keyHash);
    const tools = key.tools ? new Set(key.tools) : undefined;
    this.grantChanged(`key:${key.id}`, ({ tools: _before, ...grant }) => (tools ? { ...grant, tools } : grant));
  }

  private async keyGrant(presented: string): Promise<McpAccessGrant> {
    const key = await this.knownKey(presented);
    const project = key.project;
    let known = this.projectServers.get(project);
    if (!known) {
      const servers = this.serversOf((server) => server.project === project);
      // A key is made by its project's operators and acts for them; `tools` is how it is narrowed.
      known = { servers, operates: new Set(servers) };
      this.projectServers.set(project, known);
    }
    return { principal: key.principal, servers: known.servers, operates: known.operates, ...(key.tools ? { tools: key.tools } : {}), who: { kind: 'key', name: key.name } };
  }

  /** A key that works: known, unexpired (the lookup's), its project not deleted. */
  private async knownKey(presented: string): Promise<KnownKey> {
    const key = await this.keys.find(presented);
    if (!key) {
      throw new McpAccessError(401, 'invalid_api_key', 'The API key is not valid (unknown or expired).', { 'www-authenticate': `${REALM}, error="invalid_token"` });
    }
    if (key.projectDeleted) {
      throw new McpAccessError(401, 'project_deleted', `The API key's project "${excerpt(key.project)}" was deleted in the control plane; its keys no longer work.`, {
        'www-authenticate': `${REALM}, error="invalid_token"`,
      });
    }
    return key;
  }

  private requireControlPlane(): McpControlPlaneAccess {
    const controlPlane = this.controlPlane;
    if (!controlPlane) {
      throw new McpAccessError(
        503,
        'control_plane_not_configured',
        'Person sign-in is not set up on this gateway (MCPGW_OIDC_ISSUER_URL, MCPGW_CONTROL_PLANE_URL, MCPGW_M2M_CLIENT_ID, MCPGW_M2M_CLIENT_SECRET); use a gateway API key.',
      );
    }
    return controlPlane;
  }

  /** A person's token, verified; machine clients are refused (they use API keys). */
  private async verified(controlPlane: McpControlPlaneAccess, token: string): Promise<VerifiedCaller> {
    let caller: VerifiedCaller;
    try {
      caller = await controlPlane.verifier.verify(token);
    } catch (error) {
      if (error instanceof ContractHttpError) throw new McpAccessError(error.getStatus(), error.code, error.message, lowerCased(error.headers));
      throw error;
    }
    if (caller.kind !== 'person') throw new McpAccessError(403, 'forbidden', 'Machine clients use a gateway API key, not a client-credentials token.');
    return caller;
  }

  private async personGrant(token: string, target: VirtualServerDefinition | null): Promise<McpAccessGrant> {
    const controlPlane = this.requireControlPlane();
    const caller = await this.verified(controlPlane, token);
    const mayUse = (keys: string[]) => can(keys, PRODUCT) && rolesIn(keys, PRODUCT).length > 0;
    const who = { kind: 'person' as const, name: personName(caller) };
    try {
      if (target) {
        // One project: the cheaper single view, cached per project.
        const answer = await controlPlane.client.effectivePermissions({ subject: caller.subject, project: target.project });
        if (answer.source === 'unavailable') throw unavailable();
        if (!mayUse(answer.permissions)) return { principal: caller.subject, personToken: token, servers: [], who };
        const servers = this.serversOf((s) => s.project === target.project);
        return { principal: caller.subject, personToken: token, servers, operates: new Set(can(answer.permissions, PRODUCT, OPERATOR) ? servers : []), who };
      }
      const view = await controlPlane.client.groupedPermissions({ subject: caller.subject });
      if (view.source === 'unavailable') throw unavailable();
      // /mcp refuses, as /servers/{id}/mcp does, a person who may use the gateway on no project at
      // all (disabled, or never granted): an empty session would hide the reason.
      if (!mayUse(view.workspace) && !Object.keys(view.projects).some((project) => mayUse(keysForProject(view, project)))) throw mayUseNothing();
      const usable = this.registry.servers().filter((server) => mayUse(keysForProject(view, server.project)));
      return {
        principal: caller.subject,
        personToken: token,
        servers: usable.map((server) => server.id),
        operates: new Set(usable.filter((server) => can(keysForProject(view, server.project), PRODUCT, OPERATOR)).map((server) => server.id)),
        who,
      };
    } catch (error) {
      if (error instanceof McpAccessError) throw error;
      // A person who never signed in to the suite, or a project the control plane does not know: nothing to use.
      if (error instanceof ControlPlaneNotFoundError) {
        if (!target) throw mayUseNothing();
        return { principal: caller.subject, personToken: token, servers: [], who };
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

/** How the audit names a person: the token's user name or e-mail, else its subject. */
function personName(caller: VerifiedCaller): string {
  const { preferred_username: username, email } = caller.claims as { preferred_username?: unknown; email?: unknown };
  return typeof username === 'string' && username !== '' ? username : typeof email === 'string' && email !== '' ? email : caller.subject;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

const mayUseNothing = () =>
  new McpAccessError(403, 'forbidden', `Using the MCP gateway needs the ${PRODUCT} sign-in key and a role on a project (ask an administrator of the control plane).`);

const forbiddenOn = (project: string) =>
  new McpAccessError(403, 'forbidden', `Using the agents of project "${excerpt(project)}" needs the ${PRODUCT} sign-in key and a role on it.`);

const unavailable = () =>
  new McpAccessError(503, 'control_plane_unavailable', 'Permissions cannot be checked right now (the control plane is unreachable); try again shortly, or use a gateway API key.');
