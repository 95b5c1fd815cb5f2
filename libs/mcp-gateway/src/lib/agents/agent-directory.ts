import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { AgentCard } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { currentTraceparent } from '@arbor/observability';
import { RegistryStore } from '../registry/registry-store';
import { ServerRegistry } from '../registry/server-registry';
import { guardedFetch } from '../upstreams/upstream-http';
import type { CredentialCaller } from '../credentials/credential-caller';
import { UpstreamCredentials } from '../credentials/upstream-credentials';
import { type AgentDefinition, staticHeaders } from './agent-definition';
import { CardUnreadable, describe, readAgentCard } from './agent-card-reader';
import { AgentMetrics } from './agent-metrics';
import type { StoredAgent } from './agent-rows';

export interface AgentsOptions {
  /** MCPGW_PUBLIC_URL: where callers reach the gateway; the cards it serves point there. */
  publicUrl: string;
  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS. */
  allowLinkLocal: boolean;
  /** How often every agent's card is read again; default 5 min. */
  cardRefreshMs?: number;
}

export const AGENTS_OPTIONS = Symbol('AGENTS_OPTIONS');
const DEFAULT_CARD_REFRESH_MS = 5 * 60_000;

/** An agent's health as the admin API and the dashboard show it. */
export interface AgentHealth {
  agent: string;
  state: 'up' | 'down' | 'connecting';
  lastSeenAt?: string;
  lastError?: string;
  cardReadAt?: string;
}

class LiveAgent {
  state: AgentHealth['state'] = 'connecting';
  lastSeenMs?: number;
  lastError?: string;
  card?: AgentCard;
  cardReadAt?: Date;
  client?: Promise<Client>;
  reading?: Promise<void>;

  constructor(
    readonly definition: AgentDefinition,
    readonly fingerprint: string,
  ) {}
}

/**
 * The agents the runtime reaches: each one's card (read at start, every `cardRefreshMs` and on
 * demand, kept with the row), its health (down when its card or a call cannot reach it) and an
 * SDK client built from the card, on connections the address guard checks, carrying the trace
 * context and, per call, the headers the agent's `auth` gives for the caller (the credentials
 * module's, as for upstream MCP servers).
 */
@Injectable()
export class AgentDirectory implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('mcp-agents');
  private readonly live = new Map<string, LiveAgent>();
  private readonly listeners = new Set<() => void>();
  private unsubscribe?: () => void;
  private timer?: NodeJS.Timeout;
  /** Bumped whenever an agent's card (or the set of agents) changes: the tools built from cards follow it. */
  version = 0;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly store: RegistryStore,
    private readonly credentials: UpstreamCredentials,
    metrics: AgentMetrics,
    @Inject(AGENTS_OPTIONS) readonly options: AgentsOptions,
  ) {
    metrics.observeHealth(() => this.health());
  }

  onModuleInit(): void {
    this.reconcile();
    this.unsubscribe = this.registry.onChange(() => this.reconcile());
    this.timer = setInterval(() => void this.refreshAll(), this.options.cardRefreshMs ?? DEFAULT_CARD_REFRESH_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    clearInterval(this.timer);
  }

  has(name: string): boolean {
    return this.live.has(name);
  }

  definition(name: string): AgentDefinition | undefined {
    return this.live.get(name)?.definition;
  }

  /** The card as last read; waits for the first read of an agent just registered or started. */
  async card(name: string): Promise<AgentCard | undefined> {
    const agent = this.live.get(name);
    if (!agent) return undefined;
    if (!agent.card && agent.reading) await agent.reading;
    return agent.card;
  }

  /** The card known now, without waiting for a read in progress. */
  knownCard(name: string): AgentCard | undefined {
    return this.live.get(name)?.card;
  }

  health(name?: string): AgentHealth[] {
    return [...this.live.values()]
      .filter((agent) => name === undefined || agent.definition.name === name)
      .map((agent) => ({
        agent: agent.definition.name,
        state: agent.state,
        ...(agent.lastSeenMs !== undefined ? { lastSeenAt: new Date(agent.lastSeenMs).toISOString() } : {}),
        ...(agent.lastError ? { lastError: agent.lastError } : {}),
        ...(agent.cardReadAt ? { cardReadAt: agent.cardReadAt.toISOString() } : {}),
      }));
  }

  /** Called after a card changed or agents came and went; returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the card again now (the admin API's refresh); throws CardUnreadable when it cannot be read, after marking the agent down. */
  async refresh(name: string): Promise<AgentHealth | undefined> {
    const agent = this.live.get(name);
    if (!agent) return undefined;
    await this.read(agent, true);
    return this.health(name)[0];
  }

  /** The SDK client for the agent, from its card; undefined when its card was never read. */
  async client(name: string): Promise<Client | undefined> {
    const agent = this.live.get(name);
    if (!agent) return undefined;
    const card = await this.card(name);
    if (!card) return undefined;
    agent.client ??= this.clientFor(card);
    return agent.client;
  }

  /**
   * The headers of one call to the agent, for this caller, sent as the call's service parameters:
   * its static headers, or for `token_exchange` and `oauth` the caller's own credentials there from
   * the credentials module (throws CredentialsUnavailable). Never the caller's token itself.
   */
  async headersFor(name: string, caller: CredentialCaller): Promise<Readonly<Record<string, string>>> {
    const definition = this.live.get(name)?.definition;
    if (!definition) return {};
    const auth = definition.auth;
    if (auth.type === 'none' || auth.type === 'static') return staticHeaders(auth);
    return this.credentials.headersFor({ name: definition.name, url: definition.url, auth }, caller);
  }

  /** A call reached the agent (an answer, an A2A error among them). */
  seen(name: string): void {
    const agent = this.live.get(name);
    if (!agent) return;
    if (agent.state !== 'up') this.logger.log(`agent ${name} is up`);
    agent.state = 'up';
    agent.lastSeenMs = Date.now();
    agent.lastError = undefined;
  }

  /** A call could not reach the agent. */
  down(name: string, reason: string): void {
    const agent = this.live.get(name);
    if (!agent) return;
    if (agent.state !== 'down') this.logger.warn(`agent ${name} is down: ${reason}`);
    agent.state = 'down';
    agent.lastError = reason;
  }

  private reconcile(): void {
    let changed = false;
    const wanted = new Map(this.registry.agents().map((agent) => [agent.name, agent]));
    for (const [name, agent] of this.live) {
      const definition = wanted.get(name);
      if (!definition || fingerprint(definition) !== agent.fingerprint) {
        this.live.delete(name);
        changed = true;
      }
    }
    for (const [name, definition] of wanted) {
      if (this.live.has(name)) continue;
      const agent = new LiveAgent(definition, fingerprint(definition));
      // The card the row keeps serves until the first read (an agent down at start still has its tool and card).
      const stored = (definition as Partial<StoredAgent>).card;
      if (stored) {
        agent.card = stored.card;
        agent.cardReadAt = stored.readAt;
      }
      this.live.set(name, agent);
      changed = true;
      void this.read(agent, false).catch(() => undefined);
    }
    if (changed) this.changed();
  }

  private async refreshAll(): Promise<void> {
    await Promise.all([...this.live.values()].map((agent) => this.read(agent, false).catch(() => undefined)));
  }

  private read(agent: LiveAgent, rethrow: boolean): Promise<void> {
    const reading = (async () => {
      const name = agent.definition.name;
      try {
        // A card is read for no one: with per-caller auth, without credentials (cards are public, RFC 8615's well-known path).
        const card = await readAgentCard(agent.definition.url, staticHeaders(agent.definition.auth), this.options.allowLinkLocal);
        if (this.live.get(name) !== agent) return;
        const cardChanged = JSON.stringify(card) !== JSON.stringify(agent.card);
        agent.card = card;
        agent.cardReadAt = new Date();
        this.seen(name);
        await this.store.recordAgentCard(name, card, agent.cardReadAt);
        if (cardChanged) {
          agent.client = undefined;
          this.changed();
        }
      } catch (error) {
        const reason = error instanceof CardUnreadable ? error.message : describe(error);
        this.down(name, reason);
        if (rethrow) throw new CardUnreadable(reason);
      }
    })();
    // What waits for the card (card()) waits for the read, never for its failure.
    const settled: Promise<void> = reading
      .catch(() => undefined)
      .finally(() => {
        if (agent.reading === settled) agent.reading = undefined;
      });
    agent.reading = settled;
    return reading;
  }

  private clientFor(card: AgentCard): Promise<Client> {
    const fetchGuarded = guardedFetch(this.options.allowLinkLocal);
    // The trace continues at the agent: its spans hang off this call's.
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('traceparent', currentTraceparent());
      return fetchGuarded(input, { ...init, headers, redirect: 'error' });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }), new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
      }),
    );
    return factory.createFromAgentCard(card);
  }

  private changed(): void {
    this.version++;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.error(`an agent change listener failed: ${(error as Error).message}`);
      }
    }
  }
}

/** What makes a definition new for the runtime (a card read again does not). */
function fingerprint(definition: AgentDefinition): string {
  const { name, url, project, description, auth } = definition;
  return JSON.stringify({ name, url, project, description, auth });
}
