import { ConfigError, ConfigProblem } from '@arbor/config';
import { isUniqueViolation } from '@arbor/platform';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { HeaderCipher, HeadersUnreadable } from './header-cipher';
import type { RegistryConfig } from './registry-config';
import { ManagedByConfig, SecretsKeyMissing, ServerExists, ServerNotFound, UnknownUpstreams, UpstreamExists, UpstreamInUse, UpstreamNotFound } from './registry.exception';
import type { UpstreamDefinition, UpstreamSelection, VirtualServerDefinition } from './server-registry';
import { RegistrySource, Upstream } from './upstream.entity';
import { VirtualServer } from './virtual-server.entity';
import { OAuthAuth, sameAuth, STATIC_AUTH, UpstreamAuth } from '../credentials/upstream-auth';
import type { AgentCard } from '@a2a-js/sdk';
import { Agent } from '../agents/agent.entity';
import { AgentChanges, agentHeaders, agentRow, cardJson, resealedAuthSecret, sameAgent, StoredAgent, storedAgent } from '../agents/agent-rows';
import { AgentInUse, AgentNameTaken, AgentNotFound, UnknownAgents } from '../agents/agent.exception';
import type { AgentDefinition } from '../agents/agent-definition';

export interface RowFacts {
  source: RegistrySource;
  createdAt: Date;
  updatedAt: Date;
}

/** An upstream as stored, headers decrypted (never log them). */
export type StoredUpstream = UpstreamDefinition & RowFacts;
export type StoredServer = VirtualServerDefinition & RowFacts;

export interface RegistryRows {
  upstreams: StoredUpstream[];
  servers: StoredServer[];
  agents: StoredAgent[];
}

export type UpstreamChanges = Partial<Omit<UpstreamDefinition, 'name'>>;
export interface ServerChanges {
  project?: string;
  name?: string;
  /** `null` clears it. */
  description?: string | null;
  selections?: readonly UpstreamSelection[];
  /** Replaces the guardrails it names; `[]` names none. */
  guardrails?: readonly string[];
  /** Each replaces the map it names; `{}` names none. */
  toolRoles?: VirtualServerDefinition['toolRoles'];
  resourceRoles?: VirtualServerDefinition['resourceRoles'];
  promptRoles?: VirtualServerDefinition['promptRoles'];
  toolRateLimits?: VirtualServerDefinition['toolRateLimits'];
  auditPayloads?: boolean;
}

// Replicas starting at once sync MCPGW_CONFIG one after the other.
const CONFIG_SYNC_LOCK_ID = 0x4d435047; // "MCPG"

/**
 * The upstreams and virtual servers tables: headers sealed on the way in and opened on the way
 * out, the rules that span rows (selections name existing upstreams, an upstream in use stays,
 * config rows change only through MCPGW_CONFIG), and the start-up sync of MCPGW_CONFIG.
 */
export class RegistryStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher?: HeaderCipher,
  ) {}

  async load(): Promise<RegistryRows> {
    const [upstreams, servers, agents] = await Promise.all([
      this.dataSource.getRepository(Upstream).find({ order: { name: 'ASC' } }),
      // A deleted project's servers and agents disappear from every listing (project sync marks them).
      this.dataSource.getRepository(VirtualServer).find({ where: { projectDeletedAt: IsNull() }, order: { id: 'ASC' } }),
      this.dataSource.getRepository(Agent).find({ where: { projectDeletedAt: IsNull() }, order: { name: 'ASC' } }),
    ]);
    return { upstreams: upstreams.map((row) => this.stored(row)), servers: servers.map(storedServer), agents: agents.map((row) => storedAgent(row, this.cipher)) };
  }

  /** Seals again, under the current MCPGW_SECRETS_KEY, headers and OAuth client secrets sealed under a previous key (a rotation); the number re-sealed. */
  async resealStaleHeaders(): Promise<number> {
    const cipher = this.cipher;
    if (!cipher) return 0;
    const repository = this.dataSource.getRepository(Upstream);
    const stale = (await repository.find()).filter((row) => row.headersKeyId !== null && cipher.isStale(row.headersKeyId));
    for (const row of stale) {
      const sealed = cipher.seal(this.headers(row), row.name);
      // Only if no other replica re-sealed it meanwhile.
      await repository.update(
        { name: row.name, headersKeyId: row.headersKeyId as string },
        { headersKeyId: sealed.keyId, headersNonce: sealed.nonce, headersCiphertext: sealed.ciphertext, headersAuthTag: sealed.authTag },
      );
    }
    // An oauth upstream's client secret, sealed beside the headers.
    const staleSecrets = (await repository.find()).filter((row) => row.authSecretKeyId !== null && cipher.isStale(row.authSecretKeyId));
    for (const row of staleSecrets) {
      const auth = this.auth(row);
      if (auth.type !== 'oauth' || auth.clientSecret === undefined) continue;
      const sealed = cipher.sealSecret(auth.clientSecret, row.name);
      await repository.update(
        { name: row.name, authSecretKeyId: row.authSecretKeyId as string },
        { authSecretKeyId: sealed.keyId, authSecretNonce: sealed.nonce, authSecretCiphertext: sealed.ciphertext, authSecretAuthTag: sealed.authTag },
      );
    }
    return stale.length + staleSecrets.length + (await this.resealStaleAgentHeaders(cipher));
  }

  /** The agents' static headers and OAuth client secrets, as resealStaleHeaders does the upstreams'. */
  private async resealStaleAgentHeaders(cipher: HeaderCipher): Promise<number> {
    const repository = this.dataSource.getRepository(Agent);
    const stale = (await repository.find()).filter((row) => row.headersKeyId !== null && cipher.isStale(row.headersKeyId));
    for (const row of stale) {
      const sealed = agentRow({ name: row.name, url: row.url, project: row.project, auth: { type: 'static', headers: agentHeaders(row, cipher) } }, row.source, cipher);
      await repository.update(
        { name: row.name, headersKeyId: row.headersKeyId as string },
        { headersKeyId: sealed.headersKeyId, headersNonce: sealed.headersNonce, headersCiphertext: sealed.headersCiphertext, headersAuthTag: sealed.headersAuthTag },
      );
    }
    const staleSecrets = (await repository.find()).filter((row) => row.authSecretKeyId !== null && cipher.isStale(row.authSecretKeyId));
    for (const row of staleSecrets) await repository.update({ name: row.name, authSecretKeyId: row.authSecretKeyId as string }, resealedAuthSecret(row, cipher));
    return stale.length + staleSecrets.length;
  }

  /** Changes whenever a row is added, changed or removed; cheap on tables of this size. */
  async fingerprint(): Promise<string> {
    const [row] = (await this.dataSource.query(`
      select
        (select coalesce(md5(string_agg(name || '@' || updated_at::text, ',' order by name)), '') from upstreams) as upstreams,
        (select coalesce(md5(string_agg(id || '@' || updated_at::text, ',' order by id)), '') from virtual_servers) as servers,
        (select coalesce(md5(string_agg(name || '@' || updated_at::text, ',' order by name)), '') from agents) as agents`)) as {
      upstreams: string;
      servers: string;
      agents: string;
    }[];
    return `${row.upstreams}/${row.servers}/${row.agents}`;
  }

  async upstream(name: string): Promise<StoredUpstream> {
    const row = await this.dataSource.getRepository(Upstream).findOneBy({ name });
    if (!row) throw new UpstreamNotFound(name);
    return this.stored(row);
  }

  async server(id: string): Promise<StoredServer> {
    const row = await this.dataSource.getRepository(VirtualServer).findOneBy({ id, projectDeletedAt: IsNull() });
    if (!row) throw new ServerNotFound(id);
    return storedServer(row);
  }

  /** Keeps the control plane's id of a server's project beside its slug. */
  async recordProjectId(serverId: string, projectId: string): Promise<void> {
    await this.dataSource.getRepository(VirtualServer).update({ id: serverId }, { projectId });
  }

  async createUpstream(definition: UpstreamDefinition): Promise<StoredUpstream> {
    const upstreams = this.dataSource.getRepository(Upstream);
    if (await this.dataSource.getRepository(Agent).existsBy({ name: definition.name })) throw new AgentNameTaken(definition.name, 'agent', 'upstream');
    try {
      await upstreams.insert(this.upstreamRow(definition, 'api'));
    } catch (error) {
      if (isUniqueViolation(error, 'upstreams_pkey')) throw new UpstreamExists(definition.name);
      throw error;
    }
    return this.stored(await upstreams.findOneByOrFail({ name: definition.name }));
  }

  async updateUpstream(name: string, changes: UpstreamChanges): Promise<StoredUpstream> {
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.getRepository(Upstream).findOne({ where: { name }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new UpstreamNotFound(name);
      if (row.source === 'config') throw new ManagedByConfig('upstream', name);
      const next = { ...this.stored(row), ...definedOnly(changes) };
      await manager.getRepository(Upstream).save(this.upstreamRow(next, 'api'));
      return this.stored(await manager.getRepository(Upstream).findOneByOrFail({ name }));
    });
  }

  async deleteUpstream(name: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // Locks the row: a server selecting it cannot be saved meanwhile (see lockUpstreams).
      const row = await manager.getRepository(Upstream).findOne({ where: { name }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new UpstreamNotFound(name);
      if (row.source === 'config') throw new ManagedByConfig('upstream', name);
      const users = await serversSelecting(manager, [name]);
      if (users.length > 0)
        throw new UpstreamInUse(
          name,
          users.map((server) => server.id),
        );
      await manager.getRepository(Upstream).delete({ name });
    });
  }

  async createServer(definition: VirtualServerDefinition): Promise<StoredServer> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        await lockUpstreams(manager, definition.selections);
        await manager.getRepository(VirtualServer).insert(serverRow(definition, 'api'));
        return storedServer(await manager.getRepository(VirtualServer).findOneByOrFail({ id: definition.id }));
      });
    } catch (error) {
      if (isUniqueViolation(error, 'virtual_servers_pkey')) throw new ServerExists(definition.id);
      throw error;
    }
  }

  async updateServer(id: string, changes: ServerChanges): Promise<StoredServer> {
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.getRepository(VirtualServer).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new ServerNotFound(id);
      if (row.source === 'config') throw new ManagedByConfig('server', id);
      if (changes.selections) await lockUpstreams(manager, changes.selections);
      const { description, guardrails, ...rest } = changes;
      // Empty maps and a false flag are kept as absent, as a server read back has them.
      const next: VirtualServerDefinition = withoutEmptyRules({ ...storedServer(row), ...definedOnly(rest) });
      if (guardrails !== undefined) next.guardrails = guardrails;
      if (description !== undefined) next.description = description ?? undefined;
      await manager.getRepository(VirtualServer).save(serverRow(next, 'api'));
      return storedServer(await manager.getRepository(VirtualServer).findOneByOrFail({ id }));
    });
  }

  async deleteServer(id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await manager.getRepository(VirtualServer).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new ServerNotFound(id);
      if (row.source === 'config') throw new ManagedByConfig('server', id);
      await manager.getRepository(VirtualServer).delete({ id });
    });
  }

  async agent(name: string): Promise<StoredAgent> {
    const row = await this.dataSource.getRepository(Agent).findOneBy({ name, projectDeletedAt: IsNull() });
    if (!row) throw new AgentNotFound(name);
    return storedAgent(row, this.cipher);
  }

  /** Keeps the control plane's id of an agent's project beside its slug. */
  async recordAgentProjectId(name: string, projectId: string): Promise<void> {
    await this.dataSource.query('update agents set project_id = $2 where name = $1', [name, projectId]);
  }

  /** The card as just read; updated_at stays, so a re-read is no registry change (each replica reads cards itself). */
  async recordAgentCard(name: string, card: AgentCard, readAt: Date): Promise<void> {
    await this.dataSource.query('update agents set card = $2, card_read_at = $3 where name = $1', [name, JSON.stringify(cardJson(card)), readAt]);
  }

  async createAgent(definition: AgentDefinition, card: AgentCard): Promise<StoredAgent> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        if (await manager.getRepository(Upstream).existsBy({ name: definition.name })) throw new AgentNameTaken(definition.name, 'upstream');
        await manager.getRepository(Agent).insert({ ...agentRow(definition, 'api', this.cipher), card: cardJson(card), cardReadAt: new Date() });
        return storedAgent(await manager.getRepository(Agent).findOneByOrFail({ name: definition.name }), this.cipher);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'agents_pkey')) throw new AgentNameTaken(definition.name, 'agent');
      throw error;
    }
  }

  async updateAgent(name: string, changes: AgentChanges, card?: AgentCard): Promise<StoredAgent> {
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.getRepository(Agent).findOne({ where: { name, projectDeletedAt: IsNull() }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new AgentNotFound(name);
      if (row.source === 'config') throw new ManagedByConfig('agent', name);
      const { description, ...rest } = changes;
      const next: AgentDefinition = { ...storedAgent(row, this.cipher), ...definedOnly(rest) };
      if (description !== undefined) next.description = description ?? undefined;
      await manager.getRepository(Agent).save({ ...agentRow(next, 'api', this.cipher), ...(card ? { card: cardJson(card), cardReadAt: new Date() } : {}) });
      return storedAgent(await manager.getRepository(Agent).findOneByOrFail({ name }), this.cipher);
    });
  }

  async deleteAgent(name: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await manager.getRepository(Agent).findOne({ where: { name }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw new AgentNotFound(name);
      if (row.source === 'config') throw new ManagedByConfig('agent', name);
      const users = await serversSelecting(manager, [name]);
      if (users.length > 0)
        throw new AgentInUse(
          name,
          users.map((server) => server.id),
        );
      await manager.getRepository(Agent).delete({ name });
    });
  }

  /**
   * Makes the config rows what MCPGW_CONFIG says: added, changed, removed; API-made rows stay.
   * A name the file shares with an API-made row, a selection of an upstream nobody has, or
   * removing an upstream that API-made servers select is a ConfigError, and nothing changes.
   */
  async syncConfig(config: RegistryConfig): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('select pg_advisory_xact_lock($1)', [CONFIG_SYNC_LOCK_ID]);
      const problems: ConfigProblem[] = [];
      const problem = (path: string, message: string) => problems.push({ variable: 'MCPGW_CONFIG', message: `${path}: ${message}` });
      const upstreamRows = new Map((await manager.getRepository(Upstream).find()).map((row) => [row.name, row]));
      const serverRows = new Map((await manager.getRepository(VirtualServer).find()).map((row) => [row.id, row]));
      const agentRows = new Map((await manager.getRepository(Agent).find()).map((row) => [row.name, row]));
      config.agents.forEach((agent, index) => {
        if (agentRows.get(agent.name)?.source === 'api') problem(`agents[${index}].name`, `"${agent.name}" is also an agent made through the admin API; rename one of them`);
        if (upstreamRows.has(agent.name) || config.upstreams.some((upstream) => upstream.name === agent.name)) {
          problem(`agents[${index}].name`, `"${agent.name}" is also the name of an upstream; agents and upstreams share one namespace`);
        }
      });

      config.upstreams.forEach((upstream, index) => {
        if (upstreamRows.get(upstream.name)?.source === 'api') {
          problem(`upstreams[${index}].name`, `"${upstream.name}" is also an upstream made through the admin API; rename one of them`);
        }
      });
      config.servers.forEach((server, index) => {
        if (serverRows.get(server.id)?.source === 'api') problem(`servers[${index}].id`, `"${server.id}" is also a virtual server made through the admin API; rename one of them`);
      });
      const fileUpstreams = new Set(config.upstreams.map((upstream) => upstream.name));
      const apiUpstreams = new Set([...upstreamRows.values()].filter((row) => row.source === 'api').map((row) => row.name));
      const fileAgents = new Set(config.agents.map((agent) => agent.name));
      const apiAgents = new Set([...agentRows.values()].filter((row) => row.source === 'api').map((row) => row.name));
      config.servers.forEach((server, index) =>
        server.selections.forEach((selection, selectionIndex) => {
          if (selection.kind === 'agent') {
            const at = `servers[${index}].upstreams[${selectionIndex}].agent`;
            if (!fileAgents.has(selection.upstream) && !apiAgents.has(selection.upstream)) {
              problem(at, `"${selection.upstream}" is not an agent (neither in the file nor made through the admin API)`);
            }
            const owner = config.agents.find((agent) => agent.name === selection.upstream)?.project ?? agentRows.get(selection.upstream)?.project;
            if (owner !== undefined && owner !== server.project) problem(at, `the agent "${selection.upstream}" belongs to project "${owner}", the server to "${server.project}"`);
            return;
          }
          if (!fileUpstreams.has(selection.upstream) && !apiUpstreams.has(selection.upstream)) {
            problem(`servers[${index}].upstreams[${selectionIndex}].upstream`, `"${selection.upstream}" is not an upstream (neither in the file nor made through the admin API)`);
          }
        }),
      );
      // A guardrail an API-made server names stays in the file: its calls would otherwise go unchecked.
      const fileGuardrails = new Set(config.guardrails.map((guardrail) => guardrail.name));
      for (const server of serverRows.values()) {
        const lost = server.source === 'api' ? server.guardrails.filter((name) => !fileGuardrails.has(name)) : [];
        if (lost.length > 0)
          problem('guardrails', `${lost.map((name) => `"${name}"`).join(', ')} is not in the file but the virtual server "${server.id}" (made through the admin API) names it`);
      }
      const removedUpstreams = [...upstreamRows.values()].filter((row) => row.source === 'config' && !fileUpstreams.has(row.name)).map((row) => row.name);
      for (const server of serverRows.values()) {
        if (server.source !== 'api') continue;
        const lost = server.selections.filter((selection) => removedUpstreams.includes(selection.upstream)).map((selection) => selection.upstream);
        if (lost.length > 0)
          problem('upstreams', `${lost.map((name) => `"${name}"`).join(', ')} left the file but the virtual server "${server.id}" (made through the admin API) still selects it`);
      }
      const removedAgents = [...agentRows.values()].filter((row) => row.source === 'config' && !fileAgents.has(row.name)).map((row) => row.name);
      for (const server of serverRows.values()) {
        if (server.source !== 'api') continue;
        const lost = server.selections.filter((selection) => selection.kind === 'agent' && removedAgents.includes(selection.upstream)).map((selection) => selection.upstream);
        if (lost.length > 0)
          problem('agents', `${lost.map((name) => `"${name}"`).join(', ')} left the file but the virtual server "${server.id}" (made through the admin API) still includes it`);
      }
      if (problems.length > 0) throw new ConfigError(problems);

      const fileServers = new Set(config.servers.map((server) => server.id));
      const removedServers = [...serverRows.values()].filter((row) => row.source === 'config' && !fileServers.has(row.id)).map((row) => row.id);
      if (removedServers.length > 0) await manager.getRepository(VirtualServer).delete({ id: In(removedServers) });
      for (const upstream of config.upstreams) {
        const row = upstreamRows.get(upstream.name);
        if (!row || !this.sameUpstream(row, upstream)) await manager.getRepository(Upstream).save(this.upstreamRow(upstream, 'config'));
      }
      for (const agent of config.agents) {
        const row = agentRows.get(agent.name);
        if (!row || !sameAgent(row, agent, this.cipher)) await manager.getRepository(Agent).save(agentRow(agent, 'config', this.cipher));
      }
      for (const server of config.servers) {
        const row = serverRows.get(server.id);
        if (!row || !sameServer(row, server)) await manager.getRepository(VirtualServer).save(serverRow(server, 'config'));
      }
      if (removedUpstreams.length > 0) await manager.getRepository(Upstream).delete({ name: In(removedUpstreams) });
      if (removedAgents.length > 0) await manager.getRepository(Agent).delete({ name: In(removedAgents) });
    });
  }

  private upstreamRow(definition: UpstreamDefinition, source: RegistrySource): Partial<Upstream> {
    const sealed = Object.keys(definition.headers).length === 0 ? undefined : this.requireCipher().seal(definition.headers, definition.name);
    const auth = definition.auth ?? STATIC_AUTH;
    const secret = auth.type === 'oauth' && auth.clientSecret !== undefined ? this.requireCipher().sealSecret(auth.clientSecret, definition.name) : undefined;
    const { clientSecret: _secret, ...storedAuth } = auth as OAuthAuth;
    return {
      auth: storedAuth as UpstreamAuth,
      authSecretKeyId: secret?.keyId ?? null,
      authSecretNonce: secret?.nonce ?? null,
      authSecretCiphertext: secret?.ciphertext ?? null,
      authSecretAuthTag: secret?.authTag ?? null,
      name: definition.name,
      url: definition.url,
      transport: definition.transport,
      headersKeyId: sealed?.keyId ?? null,
      headersNonce: sealed?.nonce ?? null,
      headersCiphertext: sealed?.ciphertext ?? null,
      headersAuthTag: sealed?.authTag ?? null,
      timeoutMs: definition.timeoutMs,
      maxConcurrency: definition.maxConcurrency,
      source,
    };
  }

  private stored(row: Upstream): StoredUpstream {
    return {
      name: row.name,
      url: row.url,
      transport: row.transport,
      headers: this.headers(row),
      auth: this.auth(row),
      timeoutMs: row.timeoutMs,
      maxConcurrency: row.maxConcurrency,
      source: row.source,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  private headers(row: Upstream): Record<string, string> {
    if (row.headersKeyId === null || row.headersNonce === null || row.headersCiphertext === null || row.headersAuthTag === null) return {};
    if (!this.cipher) throw new HeadersUnreadable(row.name, 'MCPGW_SECRETS_KEY is not set');
    return this.cipher.open({ keyId: row.headersKeyId, nonce: row.headersNonce, ciphertext: row.headersCiphertext, authTag: row.headersAuthTag }, row.name);
  }

  /** The row's auth, with its client secret opened (never log it). */
  private auth(row: Upstream): UpstreamAuth {
    const auth = row.auth ?? STATIC_AUTH;
    if (auth.type !== 'oauth' || row.authSecretKeyId === null || row.authSecretNonce === null || row.authSecretCiphertext === null || row.authSecretAuthTag === null) return auth;
    if (!this.cipher) throw new HeadersUnreadable(row.name, 'MCPGW_SECRETS_KEY is not set');
    const clientSecret = this.cipher.openSecret(
      { keyId: row.authSecretKeyId, nonce: row.authSecretNonce, ciphertext: row.authSecretCiphertext, authTag: row.authSecretAuthTag },
      row.name,
    );
    return { ...auth, clientSecret };
  }

  private sameUpstream(row: Upstream, upstream: UpstreamDefinition): boolean {
    if (row.url !== upstream.url || row.transport !== upstream.transport || row.timeoutMs !== upstream.timeoutMs || row.maxConcurrency !== upstream.maxConcurrency) return false;
    try {
      if (!sameAuth(this.auth(row), upstream.auth)) return false;
      return sameRecord(this.headers(row), upstream.headers);
    } catch (error) {
      // Sealed under a key that is gone: the file's values are sealed again under the current one.
      if (error instanceof HeadersUnreadable) return false;
      throw error;
    }
  }

  private requireCipher(): HeaderCipher {
    if (!this.cipher) throw new SecretsKeyMissing();
    return this.cipher;
  }
}

/** Row locks (shared) on the selected upstreams, so none is deleted before the server is saved; throws UnknownUpstreams. */
async function lockUpstreams(manager: EntityManager, selections: readonly UpstreamSelection[]): Promise<void> {
  const names = [...new Set(selections.filter((selection) => selection.kind !== 'agent').map((selection) => selection.upstream))];
  const agents = [...new Set(selections.filter((selection) => selection.kind === 'agent').map((selection) => selection.upstream))];
  if (names.length > 0) {
    const found = await manager.getRepository(Upstream).find({ select: { name: true }, where: { name: In(names) }, lock: { mode: 'pessimistic_read' } });
    const missing = names.filter((name) => !found.some((row) => row.name === name));
    if (missing.length > 0) throw new UnknownUpstreams(missing);
  }
  if (agents.length > 0) {
    const found = await manager.getRepository(Agent).find({ select: { name: true }, where: { name: In(agents), projectDeletedAt: IsNull() }, lock: { mode: 'pessimistic_read' } });
    const missing = agents.filter((name) => !found.some((row) => row.name === name));
    if (missing.length > 0) throw new UnknownAgents(missing);
  }
}

async function serversSelecting(manager: EntityManager, upstreams: string[]): Promise<VirtualServer[]> {
  return manager
    .getRepository(VirtualServer)
    .createQueryBuilder('server')
    .where(`exists (select 1 from jsonb_array_elements(server.selections) selection where selection->>'upstream' = any(:upstreams))`, { upstreams })
    .orderBy('server.id')
    .getMany();
}

function serverRow(definition: VirtualServerDefinition, source: RegistrySource): Partial<VirtualServer> {
  return {
    id: definition.id,
    project: definition.project,
    name: definition.name,
    description: definition.description ?? null,
    selections: canonicalSelections(definition.selections),
    guardrails: [...(definition.guardrails ?? [])],
    toolRoles: { ...definition.toolRoles },
    resourceRoles: { ...definition.resourceRoles },
    promptRoles: { ...definition.promptRoles },
    toolRateLimits: Object.fromEntries(Object.entries(definition.toolRateLimits ?? {}).map(([tool, limit]) => [tool, { per_minute: limit.perMinute }])),
    auditPayloads: definition.auditPayloads === true,
    source,
  };
}

function storedServer(row: VirtualServer): StoredServer {
  return {
    id: row.id,
    project: row.project,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    selections: canonicalSelections(row.selections),
    ...(row.guardrails.length > 0 ? { guardrails: row.guardrails } : {}),
    ...accessRules(row),
    source: row.source,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** jsonb keeps object keys in its own order: compare and hand out selections in one shape. */
function canonicalSelections(selections: readonly UpstreamSelection[]): UpstreamSelection[] {
  return selections.map((selection) =>
    selection.kind === 'agent'
      ? { upstream: selection.upstream, kind: 'agent', tools: '*', resources: [], prompts: [] }
      : { upstream: selection.upstream, tools: selection.tools, resources: selection.resources, prompts: selection.prompts },
  );
}

function sameServer(row: VirtualServer, server: VirtualServerDefinition): boolean {
  return (
    row.project === server.project &&
    row.name === server.name &&
    row.description === (server.description ?? null) &&
    row.guardrails.join('\u0000') === (server.guardrails ?? []).join('\u0000') &&
    JSON.stringify(sortedKeys(accessRules(row))) === JSON.stringify(sortedKeys(withoutEmptyRules(pickAccessRules(server)))) &&
    JSON.stringify(canonicalSelections(row.selections)) === JSON.stringify(canonicalSelections(server.selections))
  );
}

type AccessRules = Pick<VirtualServerDefinition, 'toolRoles' | 'resourceRoles' | 'promptRoles' | 'toolRateLimits' | 'auditPayloads'>;

/** A row's access rules in the registry's shape, each absent when it names nothing. */
function accessRules(row: VirtualServer): AccessRules {
  return withoutEmptyRules({
    toolRoles: row.toolRoles,
    resourceRoles: row.resourceRoles,
    promptRoles: row.promptRoles,
    toolRateLimits: Object.fromEntries(Object.entries(row.toolRateLimits ?? {}).map(([tool, limit]) => [tool, { perMinute: limit.per_minute }])),
    auditPayloads: row.auditPayloads,
  });
}

function pickAccessRules(server: VirtualServerDefinition): AccessRules {
  const { toolRoles, resourceRoles, promptRoles, toolRateLimits, auditPayloads } = server;
  return { toolRoles, resourceRoles, promptRoles, toolRateLimits, auditPayloads };
}

/** Empty maps and a false flag dropped: one shape for "none", whether read from a row, the file or the API. */
function withoutEmptyRules<T extends AccessRules>(server: T): T {
  const next = { ...server };
  for (const key of ['toolRoles', 'resourceRoles', 'promptRoles', 'toolRateLimits'] as const) {
    if (next[key] === undefined || Object.keys(next[key] as object).length === 0) delete next[key];
  }
  if (next.auditPayloads !== true) delete next.auditPayloads;
  return next;
}

/** jsonb hands keys back in its own order. */
function sortedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}
