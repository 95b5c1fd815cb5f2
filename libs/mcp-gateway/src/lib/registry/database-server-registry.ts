import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigError, ConfigProblem } from '@arbor/config';
import { HeadersUnreadable } from './header-cipher';
import type { RegistryConfig } from './registry-config';
import { RegistryRows, RegistryStore, ServerChanges, StoredServer, StoredUpstream, UpstreamChanges } from './registry-store';
import { ServerRegistry, UpstreamDefinition, VirtualServerDefinition } from './server-registry';
import { checkUpstreamUrl, UpstreamUrlRefused } from './upstream-url-guard';
import { RepositoryTokenNotAllowed } from './registry.exception';
import { RepositoryTokenHosts } from '../projects/repository-token-hosts';
import type { AgentCard } from '@a2a-js/sdk';
import type { AgentDefinition } from '../agents/agent-definition';
import type { AgentChanges, StoredAgent } from '../agents/agent-rows';

export interface DatabaseServerRegistryOptions {
  /** MCPGW_CONFIG, parsed; synced into the database at start. */
  config: RegistryConfig;
  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS. */
  allowLinkLocal: boolean;
  /** How often other replicas' changes are looked for; default 5 s. */
  pollIntervalMs?: number;
  /** MCPGW_REPOSITORY_TOKEN_HOSTS: the hosts an upstream asking for {{project.repository_token}} may be at; default none. */
  repositoryTokenHosts?: RepositoryTokenHosts;
}

const DEFAULT_POLL_INTERVAL_MS = 5_000;
const NO_TOKEN_HOSTS = new RepositoryTokenHosts();

/**
 * The ServerRegistry of the gateway: an in-memory snapshot of the upstreams and virtual servers
 * tables (headers decrypted), so the runtime never waits on the database. Reloaded after its own
 * changes, and when a cheap fingerprint query every few seconds shows another replica's.
 */
export class DatabaseServerRegistry extends ServerRegistry implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('mcp-registry');
  private readonly listeners = new Set<() => void>();
  private rows: RegistryRows = { upstreams: [], servers: [], agents: [] };
  private agentsByName = new Map<string, StoredAgent>();
  private upstreamsByName = new Map<string, StoredUpstream>();
  private serversById = new Map<string, StoredServer>();
  private fingerprint = '';
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;

  constructor(
    private readonly store: RegistryStore,
    private readonly options: DatabaseServerRegistryOptions,
  ) {
    super();
  }

  /** Checks MCPGW_CONFIG's upstream URLs, syncs the file into the database, loads, and starts polling. */
  async start(): Promise<void> {
    await this.checkConfigUrls();
    await this.store.syncConfig(this.options.config);
    try {
      const resealed = await this.store.resealStaleHeaders();
      if (resealed > 0) this.logger.log(`sealed the headers and client secrets of ${resealed} upstream(s) and agent(s) again under the current MCPGW_SECRETS_KEY`);
      await this.refresh();
    } catch (error) {
      // Serving an upstream without the headers it was given would fail in stranger ways later.
      if (error instanceof HeadersUnreadable) throw new ConfigError([{ variable: 'MCPGW_SECRETS_KEY', message: error.message }]);
      throw error;
    }
    this.timer = setInterval(() => {
      this.refreshIfChanged().catch((error: unknown) => this.logger.error(`reloading the registry failed: ${(error as Error).message}`));
    }, this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  // In a Nest app: started before it listens, stopped on shutdown.
  onModuleInit(): Promise<void> {
    return this.start();
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  upstreams(): readonly StoredUpstream[] {
    return this.rows.upstreams;
  }

  upstream(name: string): StoredUpstream | undefined {
    return this.upstreamsByName.get(name);
  }

  servers(): readonly StoredServer[] {
    return this.rows.servers;
  }

  server(id: string): StoredServer | undefined {
    return this.serversById.get(id);
  }

  override agents(): readonly StoredAgent[] {
    return this.rows.agents;
  }

  override agent(name: string): StoredAgent | undefined {
    return this.agentsByName.get(name);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reloads when the tables changed since the last load (another replica, or a start-up sync). */
  async refreshIfChanged(): Promise<void> {
    if ((await this.store.fingerprint()) !== this.fingerprint) await this.refresh();
  }

  async createUpstream(definition: UpstreamDefinition): Promise<StoredUpstream> {
    this.refuseRepositoryToken(definition);
    return this.changed(await this.store.createUpstream(definition));
  }

  async updateUpstream(name: string, changes: UpstreamChanges): Promise<StoredUpstream> {
    // A new URL for headers that ask for the token, or such headers for the URL it has: judged as it will be.
    if (changes.url !== undefined || changes.headers !== undefined) {
      const current = await this.store.upstream(name);
      this.refuseRepositoryToken({ name, url: changes.url ?? current.url, headers: changes.headers ?? current.headers });
    }
    return this.changed(await this.store.updateUpstream(name, changes));
  }

  async deleteUpstream(name: string): Promise<void> {
    await this.store.deleteUpstream(name);
    await this.refresh();
  }

  async createServer(definition: VirtualServerDefinition): Promise<StoredServer> {
    return this.changed(await this.store.createServer(definition));
  }

  async updateServer(id: string, changes: ServerChanges): Promise<StoredServer> {
    return this.changed(await this.store.updateServer(id, changes));
  }

  async deleteServer(id: string): Promise<void> {
    await this.store.deleteServer(id);
    await this.refresh();
  }

  /** `card`: as the caller just read it (the registration's check), stored with the row. */
  async createAgent(definition: AgentDefinition, card: AgentCard): Promise<StoredAgent> {
    return this.changed(await this.store.createAgent(definition, card));
  }

  async updateAgent(name: string, changes: AgentChanges, card?: AgentCard): Promise<StoredAgent> {
    return this.changed(await this.store.updateAgent(name, changes, card));
  }

  async deleteAgent(name: string): Promise<void> {
    await this.store.deleteAgent(name);
    await this.refresh();
  }

  private async changed<T>(result: T): Promise<T> {
    await this.refresh();
    return result;
  }

  /** One load at a time; a call during a load waits for a fresh one after it. */
  private async refresh(): Promise<void> {
    while (this.refreshing) await this.refreshing;
    this.refreshing = this.load().finally(() => (this.refreshing = undefined));
    await this.refreshing;
  }

  private async load(): Promise<void> {
    // The fingerprint first: a change landing during the load is seen again by the next poll.
    const fingerprint = await this.store.fingerprint();
    const rows = await this.store.load();
    const changed = JSON.stringify(definitions(rows)) !== JSON.stringify(definitions(this.rows));
    this.rows = rows;
    this.upstreamsByName = new Map(rows.upstreams.map((upstream) => [upstream.name, upstream]));
    this.serversById = new Map(rows.servers.map((server) => [server.id, server]));
    this.agentsByName = new Map(rows.agents.map((agent) => [agent.name, agent]));
    this.fingerprint = fingerprint;
    if (!changed) return;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.error(`a registry change listener failed: ${(error as Error).message}`);
      }
    }
  }

  private refuseRepositoryToken(upstream: Pick<UpstreamDefinition, 'name' | 'url' | 'headers'>): void {
    const refusal = this.tokenHosts.refusal(upstream);
    if (refusal) throw new RepositoryTokenNotAllowed(refusal);
  }

  private get tokenHosts(): RepositoryTokenHosts {
    return this.options.repositoryTokenHosts ?? NO_TOKEN_HOSTS;
  }

  private async checkConfigUrls(): Promise<void> {
    const problems: ConfigProblem[] = this.options.config.upstreams.flatMap((upstream, index) => {
      const refusal = this.tokenHosts.refusal(upstream);
      return refusal ? [{ variable: 'MCPGW_CONFIG', message: `upstreams[${index}].headers: ${refusal}` }] : [];
    });
    const addresses = [
      ...this.options.config.upstreams.map((upstream, index) => ({ what: `upstream "${upstream.name}"`, at: `upstreams[${index}].url`, url: upstream.url })),
      ...this.options.config.agents.map((agent, index) => ({ what: `agent "${agent.name}"`, at: `agents[${index}].url`, url: agent.url })),
    ];
    await Promise.all(
      addresses.map(async ({ what, at, url }) => {
        try {
          await checkUpstreamUrl(url, { allowLinkLocal: this.options.allowLinkLocal });
        } catch (error) {
          if (!(error instanceof UpstreamUrlRefused)) throw error;
          // A name that does not resolve yet may well later (a service still starting); the runtime checks again on connect.
          if (error.reason === 'unresolvable') this.logger.warn(`${what}: ${error.message}`);
          else problems.push({ variable: 'MCPGW_CONFIG', message: `${at}: ${error.message}` });
        }
      }),
    );
    if (problems.length > 0) throw new ConfigError(problems.sort((a, b) => a.message.localeCompare(b.message)));
  }
}

/** What the runtime sees, without row timestamps: a reload that changes nothing notifies no one. */
function definitions(rows: RegistryRows): unknown {
  return {
    upstreams: rows.upstreams.map(({ source: _source, createdAt: _created, updatedAt: _updated, ...upstream }) => upstream),
    servers: rows.servers.map(({ source: _source, createdAt: _created, updatedAt: _updated, ...server }) => server),
    // A card read again is no registry change: the agents' runtime follows cards itself.
    agents: rows.agents.map(({ source: _source, createdAt: _created, updatedAt: _updated, card: _card, ...agent }) => agent),
  };
}
