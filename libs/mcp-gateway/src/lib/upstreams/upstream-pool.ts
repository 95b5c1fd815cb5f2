import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ClientRequest,
  ErrorCode,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  Result,
  ResultSchema,
  ServerCapabilities,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';
import { ServerRegistry, UpstreamDefinition } from '../registry/server-registry';
import { CatalogueItem, UpstreamCatalogue, UpstreamHealth } from '../registry/upstream-catalogue';
import { ConcurrencyLimit } from './concurrency-limit';
import { McpCallLabels, McpMetrics } from '../metrics/mcp-metrics';
import { hasPerCallHeaders, UpstreamCallHeaders } from './per-call-headers';
import { describeFailure, UpstreamLink } from './upstream-link';
import { ENVELOPE_META_PREFIX } from '../protocol/envelope';
import { callRoute, callsDirectly, DirectCallTransport, UpstreamTransport } from './upstream-transport';
import { callerKey, type CredentialCaller } from '../credentials/credential-caller';
import { CredentialsUnavailable } from '../credentials/credentials.exception';
import { isPerCaller } from '../credentials/upstream-auth';
import { UpstreamCredentials } from '../credentials/upstream-credentials';
import { refusedCall } from './refused-call';
import { AgentTools } from '../agents/agent-tools';
import type { ForwardOptions, UpstreamOffer } from './upstream-offer';

export type { ForwardOptions, UpstreamNotification, UpstreamOffer } from './upstream-offer';

export type CatalogueKind = 'tools' | 'resources' | 'prompts';

/** Sends requests to upstreams: the pool's shared sessions, or one downstream session's own. */
export interface UpstreamCaller {
  forward(upstream: string, request: ClientRequest, options?: ForwardOptions): Promise<Result>;
}

/** One caller's session to an upstream with per-caller auth, and the credentials it was opened with. */
interface CallerLink {
  link: UpstreamLink;
  definition: UpstreamDefinition;
  fingerprint: string;
  usedAt: number;
}

/** A caller's session unused this long is closed. */
const CALLER_LINK_IDLE_MS = 10 * 60_000;
/** Callers' sessions kept per upstream at most; the least recently used go first. */
const MAX_CALLER_LINKS = 1000;

const EMPTY_OFFER: UpstreamOffer = { capabilities: {}, tools: [], resources: [], resourceTemplates: [], prompts: [] };
/** An upstream's offer before any connection listed it (down at start, or per-caller and not yet discovered). */
const UNLOADED_OFFER: UpstreamOffer = { ...EMPTY_OFFER, unloaded: true };
const MAX_RECONNECT_DELAY_MS = 30_000;
const MAX_PAGES = 1000;

class PooledUpstream {
  state: UpstreamHealth['state'] = 'connecting';
  /** Set on every call it answers: a number, formatted only when health is asked for. */
  lastSeenMs?: number;
  lastError?: string;
  offer: UpstreamOffer = UNLOADED_OFFER;
  failures = 0;
  retryTimer?: NodeJS.Timeout;
  /** Settles when the first connection attempt (and its catalogue) is done, either way. */
  firstAttempt: Promise<void> = Promise.resolve();
  /** The catalogue load started by the latest open. */
  loading: Promise<void> = Promise.resolve();
  readonly limit: ConcurrencyLimit;
  readonly shared: UpstreamLink;
  /** Per-caller auth: each caller's own session, opened with that caller's credentials (replaced when they change). */
  readonly callers = new Map<string, CallerLink>();
  /** Per-caller auth: the catalogue is being (or was) loaded on a caller's session. */
  discovering?: Promise<void>;

  constructor(
    readonly definition: UpstreamDefinition,
    readonly fingerprint: string,
    sharedLink: (up: PooledUpstream) => UpstreamLink,
  ) {
    this.limit = new ConcurrencyLimit(definition.maxConcurrency);
    this.shared = sharedLink(this);
  }
}

/**
 * One warm MCP session per upstream, shared by stateless calls: reopened after failures with
 * backoff, pinged for health, its catalogue cached and refreshed on list_changed. Every call to an
 * upstream (shared or a session's own) passes its concurrency limit and timeout here.
 */
@Injectable()
export class UpstreamPool extends UpstreamCatalogue implements UpstreamCaller, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('UpstreamPool');
  private readonly upstreams = new Map<string, PooledUpstream>();
  private readonly listeners = new Set<(upstream: string, kind: CatalogueKind) => void>();
  private pinger?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private unsubscribeAgents?: () => void;
  /** Bumped whenever any catalogue changes, so derived views know when to rebuild. */
  version = 0;

  constructor(
    private readonly registry: ServerRegistry,
    @Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions,
    private readonly metrics: McpMetrics,
    @Optional() private readonly callHeaders?: UpstreamCallHeaders,
    @Optional() private readonly credentials?: UpstreamCredentials,
    // A2A agents a virtual server includes: one kind of upstream more, each offering one tool.
    @Optional() private readonly agents?: AgentTools,
  ) {
    super();
    metrics.observeUpstreams(() => this.health());
  }

  onModuleInit(): void {
    this.reconcile();
    this.unsubscribeAgents = this.agents?.onChange(() => {
      this.version++;
      for (const listener of this.listeners) for (const agent of this.registry.agents()) listener(agent.name, 'tools');
    });
    this.unsubscribe = this.registry.onChange(() => this.reconcile());
    this.pinger = setInterval(() => void this.pingAll(), this.options.pingIntervalMs);
    this.pinger.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribeAgents?.();
    clearInterval(this.pinger);
    await Promise.all([...this.upstreams.values()].map((up) => this.retire(up)));
    this.upstreams.clear();
  }

  items(upstream?: string): readonly CatalogueItem[] {
    const agents = this.agents;
    const agentTools = agents
      ? this.registry
          .agents()
          .filter((agent) => upstream === undefined || agent.name === upstream)
          .flatMap((agent) => agents.knownOffer(agent.name).tools.map((t) => item(agent.name, 'tool', t.name, t.description)))
      : [];
    return [
      ...this.selected(upstream).flatMap(({ definition: { name }, offer }) => [
        ...offer.tools.map((t) => ({ ...item(name, 'tool', t.name, t.description), ...(t.annotations?.destructiveHint === true ? { destructive: true } : {}) })),
        ...offer.resources.map((r) => item(name, 'resource', r.uri, r.description)),
        ...offer.resourceTemplates.map((r) => item(name, 'resource-template', r.uriTemplate, r.description)),
        ...offer.prompts.map((p) => item(name, 'prompt', p.name, p.description)),
      ]),
      ...agentTools,
    ];
  }

  health(upstream?: string): readonly UpstreamHealth[] {
    return this.selected(upstream).map((up) => ({
      upstream: up.definition.name,
      state: up.state,
      ...(up.lastSeenMs !== undefined ? { lastSeenAt: new Date(up.lastSeenMs).toISOString() } : {}),
      ...(up.lastError ? { lastError: up.lastError } : {}),
      ...(up.shared.version ? { protocolVersion: up.shared.version } : {}),
    }));
  }

  /**
   * The upstream's offer; waits for its first connection attempt so a fresh gateway lists everything.
   * An upstream with per-caller auth has no session of the gateway's own: its catalogue is loaded
   * on the session of the first caller whose credentials it accepts (`caller`), and again whenever
   * a caller's session opens.
   */
  async offer(upstream: string, caller?: CredentialCaller): Promise<UpstreamOffer> {
    const up = this.upstreams.get(upstream);
    if (!up) return this.agents?.has(upstream) ? this.agents.offer(upstream) : EMPTY_OFFER;
    await up.firstAttempt;
    if (isPerCaller(up.definition.auth) && up.offer === UNLOADED_OFFER && caller) await this.discover(up, caller);
    return up.offer;
  }

  /** A per-caller upstream whose catalogue no caller's session has loaded yet: a view built without it is not to be kept. */
  awaitingDiscovery(upstream: string): boolean {
    const up = this.upstreams.get(upstream);
    return up !== undefined && isPerCaller(up.definition.auth) && up.offer === UNLOADED_OFFER;
  }

  /** The offer known now (empty before the first connection). */
  knownOffer(upstream: string): UpstreamOffer {
    const up = this.upstreams.get(upstream);
    if (!up && this.agents?.has(upstream)) return this.agents.knownOffer(upstream);
    return up?.offer ?? EMPTY_OFFER;
  }

  definition(upstream: string): UpstreamDefinition | undefined {
    return this.upstreams.get(upstream)?.definition;
  }

  /** Called with (upstream, kind) after a catalogue changed; returns an unsubscribe. */
  onCatalogueChange(listener: (upstream: string, kind: CatalogueKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listeners subscribed now: one per open session with upstream sessions of its own. */
  get catalogueListeners(): number {
    return this.listeners.size;
  }

  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS, for every link to an upstream (the pool's and the sessions'). */
  get allowLinkLocal(): boolean {
    return this.options.allowLinkLocalUpstreams;
  }

  forward(upstream: string, request: ClientRequest, options: ForwardOptions = {}): Promise<Result> {
    return this.forwardOn(upstream, (up) => up.shared, request, options);
  }

  /**
   * Sends `request` on the link `via` picks (the shared session or a downstream session's own),
   * under the upstream's concurrency limit and timeout. An upstream that cannot be reached becomes
   * a JSON-RPC error naming it; errors the upstream answered pass through unchanged.
   */
  async forwardOn(
    upstream: string,
    via: (up: { definition: UpstreamDefinition; shared: UpstreamLink }) => UpstreamLink,
    request: ClientRequest,
    options: ForwardOptions,
  ): Promise<Result> {
    const up = this.upstreams.get(upstream);
    if (!up && this.agents?.has(upstream)) return this.callAgent(this.agents, upstream, request, options);
    if (!up) throw unavailable(upstream, 'not registered');
    const started = performance.now();
    const labels = this.callLabels(up, request, options.server);
    let target: { definition: UpstreamDefinition; shared: UpstreamLink } = up;
    if (isPerCaller(up.definition.auth)) {
      try {
        target = await this.callerTarget(up, options.caller);
      } catch (error) {
        if (!(error instanceof CredentialsUnavailable)) throw error;
        this.metrics.record(labels, request.method === 'tools/call' ? 'tool_error' : 'error', (performance.now() - started) / 1000);
        return refusedCall(request, error, options.elicitsUrls === true);
      }
    }
    const link = via(target);
    // {{project.repository_token}} and the like: resolved for this call, sent with it, then dropped.
    const callHeaders = hasPerCallHeaders(target.definition.headers) ? await this.perCallHeaders(target.definition, options) : undefined;
    return up.limit.run(async () => {
      try {
        const result = await link.use((client, transport) => {
          const route = callRoute(transport.traits, {
            progress: options.onprogress !== undefined,
            ownStream: options.onnotification !== undefined,
            callHeaders: callHeaders !== undefined,
          });
          if (route === 'refused') {
            throw new McpError(
              ErrorCode.InvalidRequest,
              `Upstream "${upstream}" needs the project's repository token, sent on Streamable HTTP calls without progress notifications only`,
            );
          }
          if (callHeaders && route === 'direct' && callsDirectly(transport)) {
            return rawCall(transport, withoutEnvelope(request), up.definition.timeoutMs, { ...(options.signal ? { signal: options.signal } : {}) }, callHeaders);
          }
          // The revision's envelope means something only to an upstream of the revision.
          const outgoing = transport.traits.takesEnvelope ? request : withoutEnvelope(request);
          if (route === 'direct' && callsDirectly(transport)) return rawCall(transport, outgoing, up.definition.timeoutMs, options);
          return client.request(outgoing, ResultSchema, {
            timeout: up.definition.timeoutMs,
            resetTimeoutOnProgress: true,
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onprogress ? { onprogress: options.onprogress } : {}),
          });
        }, options.signal);
        this.seen(up);
        this.metrics.record(labels, (result as { isError?: unknown }).isError === true ? 'tool_error' : 'ok', (performance.now() - started) / 1000);
        return result;
      } catch (error) {
        const seconds = (performance.now() - started) / 1000;
        if (options.signal?.aborted) {
          this.metrics.record(labels, 'cancelled', seconds);
          throw error;
        }
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          this.metrics.record(labels, 'timeout', seconds);
          throw new McpError(ErrorCode.RequestTimeout, `Upstream "${upstream}" did not answer in time`, { upstream });
        }
        if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
          this.metrics.record(labels, 'error', seconds);
          throw UpstreamAnswer.of(error);
        }
        this.metrics.record(labels, 'unavailable', seconds);
        this.down(up, error);
        throw unavailable(upstream, describeFailure(error));
      }
    });
  }

  /**
   * The caller's own session to an upstream with per-caller auth, opened with the headers the
   * credentials module gives for that caller (the upstream's configured ones beneath them). New
   * credentials (a token renewed) open a new session; the old one is closed once its calls had time to end.
   */
  private async callerTarget(up: PooledUpstream, caller: CredentialCaller | undefined): Promise<{ definition: UpstreamDefinition; shared: UpstreamLink }> {
    const auth = up.definition.auth;
    if (!isPerCaller(auth)) return up;
    if (!this.credentials)
      throw new CredentialsUnavailable(
        'token_exchange_not_configured',
        up.definition.name,
        `Upstream "${up.definition.name}" authenticates each caller, and this gateway has no credentials module`,
      );
    const headers = await this.credentials.headersFor({ name: up.definition.name, url: up.definition.url, auth }, caller);
    // headersFor refused a call without a caller; one is known here.
    const key = callerKey(caller as CredentialCaller);
    const fingerprint = JSON.stringify(headers);
    let entry = up.callers.get(key);
    if (!entry || entry.fingerprint !== fingerprint) {
      if (entry) this.retireLater(entry.link, up.definition.timeoutMs);
      const definition: UpstreamDefinition = { ...up.definition, headers: { ...up.definition.headers, ...headers } };
      entry = { link: this.callerLink(up, definition), definition, fingerprint, usedAt: Date.now() };
      up.callers.delete(key);
      up.callers.set(key, entry);
      if (up.callers.size > MAX_CALLER_LINKS) {
        const [oldestKey, oldest] = up.callers.entries().next().value as [string, CallerLink];
        up.callers.delete(oldestKey);
        void oldest.link.close();
      }
    }
    entry.usedAt = Date.now();
    return { definition: entry.definition, shared: entry.link };
  }

  private callerLink(up: PooledUpstream, definition: UpstreamDefinition): UpstreamLink {
    const name = up.definition.name;
    const link: UpstreamLink = new UpstreamLink(definition, {
      capabilities: {},
      configure: (client) => {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh(name, 'tools'));
        client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.refresh(name, 'resources'));
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.refresh(name, 'prompts'));
      },
      onOpen: (client, transport) => this.opened(up, client, transport, link),
      allowLinkLocal: this.allowLinkLocal,
    });
    return link;
  }

  /** Loads a per-caller upstream's catalogue on `caller`'s session; one load at a time, failures leave it empty (the caller's call says why). */
  private async discover(up: PooledUpstream, caller: CredentialCaller): Promise<void> {
    up.discovering ??= (async () => {
      try {
        const { shared } = await this.callerTarget(up, caller);
        await shared.open();
        await up.loading;
      } catch (error) {
        // A caller without credentials there says nothing of the upstream's health.
        if (!(error instanceof CredentialsUnavailable)) this.down(up, error);
      } finally {
        up.discovering = undefined;
      }
    })();
    await up.discovering;
  }

  private retireLater(link: UpstreamLink, afterMs: number): void {
    setTimeout(() => void link.close(), afterMs).unref();
  }

  /** A tools/call of an agent's tool: the agent's client makes it, under the same call metrics as any upstream's. */
  private async callAgent(agents: AgentTools, agent: string, request: ClientRequest, options: ForwardOptions): Promise<Result> {
    const started = performance.now();
    const labels: McpCallLabels = {
      server: options.server === undefined ? '' : options.server === null ? '/mcp' : options.server,
      upstream: agent,
      method: request.method,
      tool: request.method === 'tools/call' ? agent : '',
    };
    try {
      const result = await agents.call(agent, request, options);
      this.metrics.record(labels, (result as { isError?: unknown }).isError === true ? 'tool_error' : 'ok', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      this.metrics.record(labels, options.signal?.aborted ? 'cancelled' : 'error', (performance.now() - started) / 1000);
      throw error;
    }
  }

  /** A call's metric labels; names only as the upstream's catalogue lists them, so the series stay bounded. */
  private async perCallHeaders(definition: UpstreamDefinition, options: ForwardOptions): Promise<Record<string, string>> {
    if (!this.callHeaders)
      throw new McpError(ErrorCode.InternalError, `Upstream "${definition.name}" needs the project's repository token, and this gateway has no control plane configured`);
    return this.callHeaders.resolve(options.server ?? null, definition);
  }

  private callLabels(up: PooledUpstream, request: ClientRequest, server: string | null | undefined): McpCallLabels {
    const name = (request.params as { name?: unknown } | undefined)?.name;
    const listed =
      request.method === 'tools/call' ? up.offer.tools.some((t) => t.name === name) : request.method === 'prompts/get' ? up.offer.prompts.some((p) => p.name === name) : undefined;
    return {
      server: server === undefined ? '' : server === null ? '/mcp' : server,
      upstream: up.definition.name,
      method: request.method,
      tool: listed === undefined ? '' : listed ? String(name) : '(unlisted)',
    };
  }

  /** Refreshes one kind of an upstream's catalogue (after a list_changed seen on any of its sessions). */
  async refresh(upstream: string, kind: CatalogueKind): Promise<void> {
    const up = this.upstreams.get(upstream);
    const client = up?.shared.current ?? (up && [...up.callers.values()].reverse().find((entry) => entry.link.current)?.link.current);
    if (!up || !client) return;
    try {
      const lists = await fetchKind(client, kind, up.offer.capabilities);
      up.offer = Object.assign({}, up.offer, lists);
      this.changed(upstream, kind);
    } catch (error) {
      this.logger.warn(`catalogue refresh of upstream ${upstream} failed: ${describeFailure(error)}`);
    }
  }

  private reconcile(): void {
    const wanted = new Map(this.registry.upstreams().map((d) => [d.name, d]));
    for (const [name, up] of this.upstreams) {
      const definition = wanted.get(name);
      if (!definition || JSON.stringify(definition) !== up.fingerprint) {
        this.upstreams.delete(name);
        void this.retire(up);
      }
    }
    for (const [name, definition] of wanted) {
      if (this.upstreams.has(name)) continue;
      const up = new PooledUpstream(definition, JSON.stringify(definition), (self) => this.sharedLink(self));
      this.upstreams.set(name, up);
      // Per-caller auth: the gateway has no credentials of its own there; callers' sessions open on use.
      if (!isPerCaller(definition.auth)) up.firstAttempt = this.connect(up);
    }
  }

  private sharedLink(up: PooledUpstream): UpstreamLink {
    const name = up.definition.name;
    return new UpstreamLink(up.definition, {
      capabilities: {},
      configure: (client) => {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh(name, 'tools'));
        client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.refresh(name, 'resources'));
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.refresh(name, 'prompts'));
      },
      onOpen: (client, transport) => this.opened(up, client, transport),
      onLost: (error) => this.down(up, error),
      allowLinkLocal: this.allowLinkLocal,
    });
  }

  private async connect(up: PooledUpstream): Promise<void> {
    try {
      await up.shared.open();
      // The catalogue is loaded by onOpen; wait for it here so the first lists are complete.
      await up.loading;
    } catch (error) {
      this.down(up, error);
    }
  }

  private opened(up: PooledUpstream, client: Client, transport: UpstreamTransport, link: UpstreamLink = up.shared): void {
    up.loading = (async () => {
      const capabilities = client.getServerCapabilities() ?? {};
      try {
        const [tools, resources, prompts] = await Promise.all([
          fetchKind(client, 'tools', capabilities),
          fetchKind(client, 'resources', capabilities),
          fetchKind(client, 'prompts', capabilities),
        ]);
        if (this.upstreams.get(up.definition.name) !== up) return;
        const before = up.offer;
        up.offer = Object.assign({}, EMPTY_OFFER, tools, resources, prompts, { capabilities, logsPerCall: transport.traits.logsPerCall });
        this.seen(up);
        // A reconnect usually finds the same catalogue: only real changes are announced.
        const kinds = { tools: ['tools'], resources: ['resources', 'resourceTemplates'], prompts: ['prompts'] } as const;
        for (const [kind, keys] of Object.entries(kinds) as [CatalogueKind, readonly (keyof UpstreamOffer)[]][]) {
          if (keys.some((key) => JSON.stringify(before[key]) !== JSON.stringify(up.offer[key]))) this.changed(up.definition.name, kind);
        }
      } catch (error) {
        link.drop(error);
        this.down(up, error);
      }
    })();
  }

  private async pingAll(): Promise<void> {
    const idleSince = Date.now() - CALLER_LINK_IDLE_MS;
    for (const up of this.upstreams.values()) {
      for (const [key, entry] of up.callers) {
        if (entry.usedAt >= idleSince) continue;
        up.callers.delete(key);
        void entry.link.close();
      }
    }
    await Promise.all(
      [...this.upstreams.values()].map(async (up) => {
        const client = up.shared.current;
        if (!client) return;
        try {
          await client.ping({ timeout: Math.min(up.definition.timeoutMs, this.options.pingIntervalMs) });
          this.seen(up);
        } catch (error) {
          up.shared.drop(error);
          this.down(up, error);
        }
      }),
    );
  }

  private seen(up: PooledUpstream): void {
    const wasDown = up.state !== 'up';
    up.state = 'up';
    up.lastSeenMs = Date.now();
    up.lastError = undefined;
    up.failures = 0;
    if (wasDown) this.logger.log(`upstream ${up.definition.name} is up`);
  }

  private down(up: PooledUpstream, error: unknown): void {
    if (this.upstreams.get(up.definition.name) !== up) return;
    const reason = describeFailure(error);
    if (up.state !== 'down') this.logger.warn(`upstream ${up.definition.name} is down: ${reason}`);
    up.state = 'down';
    up.lastError = reason;
    this.scheduleReconnect(up);
  }

  /** Reopens the shared session with exponential backoff; a call in between tries at once anyway. */
  private scheduleReconnect(up: PooledUpstream): void {
    // A per-caller upstream is reached again by the next caller, with that caller's credentials.
    if (up.retryTimer || isPerCaller(up.definition.auth)) return;
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, 500 * 2 ** up.failures);
    up.failures++;
    up.retryTimer = setTimeout(() => {
      up.retryTimer = undefined;
      if (this.upstreams.get(up.definition.name) === up && !up.shared.current) void this.connect(up);
    }, delay);
    up.retryTimer.unref();
  }

  private changed(upstream: string, kind: CatalogueKind): void {
    this.version++;
    for (const listener of this.listeners) listener(upstream, kind);
  }

  private async retire(up: PooledUpstream): Promise<void> {
    clearTimeout(up.retryTimer);
    const callers = [...up.callers.values()];
    up.callers.clear();
    await Promise.all([up.shared.close(), ...callers.map((entry) => entry.link.close())]);
  }

  private selected(upstream?: string): PooledUpstream[] {
    const all = [...this.upstreams.values()];
    return upstream === undefined ? all : all.filter((up) => up.definition.name === upstream);
  }
}

function item(upstream: string, kind: CatalogueItem['kind'], name: string, description?: string): CatalogueItem {
  return { upstream, kind, name, ...(description ? { description } : {}) };
}

/**
 * An error the upstream answered, passed on as it was worded: an McpError (the SDK's handlers and
 * the pool's callers treat it as one) whose message is the upstream's own, with no second
 * `MCP error <code>:` in front of the one the upstream's SDK may already have put there.
 */
export class UpstreamAnswer extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }

  /** The SDK client's McpError for an upstream's answer carries our prefix over the upstream's message. */
  static of(error: McpError): McpError {
    if (error instanceof UpstreamAnswer || error.constructor !== McpError) return error;
    const prefix = `MCP error ${error.code}: `;
    return new UpstreamAnswer(error.code, error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message, error.data);
  }
}

export function unavailable(upstream: string, reason: string): McpError {
  return new McpError(ErrorCode.InternalError, `Upstream "${upstream}" is unavailable: ${reason}`, { upstream, reason });
}

/** A request of a 2026-07-28 client as an upstream of the older versions takes it: no `io.modelcontextprotocol/` keys in `_meta`. */
function withoutEnvelope(request: ClientRequest): ClientRequest {
  const meta = request.params?._meta as Record<string, unknown> | undefined;
  if (!meta || !Object.keys(meta).some((key) => key.startsWith(ENVELOPE_META_PREFIX))) return request;
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(ENVELOPE_META_PREFIX)));
  const { _meta: _dropped, ...params } = request.params as Record<string, unknown>;
  return { ...request, params: Object.keys(kept).length > 0 ? { ...params, _meta: kept } : params } as ClientRequest;
}

/**
 * The answer as the SDK client would give it: the result, or the upstream's error as an McpError.
 * What the upstream sends on the call's stream goes to `onprogress` (the client's own token went
 * up with the call) and `onnotification`. `headers`: this call's own (per-call upstream headers).
 */
async function rawCall(
  transport: DirectCallTransport,
  request: ClientRequest,
  timeoutMs: number,
  options: ForwardOptions,
  headers?: Readonly<Record<string, string>>,
): Promise<Result> {
  const { signal, onprogress, onnotification } = options;
  const response = await transport.call(request.method, request.params, {
    timeoutMs,
    ...(signal ? { signal } : {}),
    ...(headers ? { headers } : {}),
    ...(onnotification
      ? {
          onnotification: (notification) => {
            if (notification.method !== 'notifications/progress') return onnotification(notification);
            if (!onprogress) return;
            const { progressToken: _token, _meta: _ignored, ...progress } = notification.params ?? {};
            onprogress(progress as Parameters<typeof onprogress>[0]);
          },
        }
      : {}),
  });
  if ('error' in response) throw new UpstreamAnswer(response.error.code, response.error.message, response.error.data);
  const result = response.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new Error('The upstream answered a result that is not an object');
  return result as Result;
}

/** Every page of one kind, following the upstream's cursors. */
async function fetchKind(client: Client, kind: CatalogueKind, capabilities: ServerCapabilities): Promise<Partial<UpstreamOffer>> {
  if (kind === 'tools') {
    if (!capabilities.tools) return { tools: [] };
    return {
      tools: await allPages(
        (cursor) => client.request({ method: 'tools/list', params: { cursor } }, ListToolsResultSchema),
        (r) => r.tools,
      ),
    };
  }
  if (kind === 'prompts') {
    if (!capabilities.prompts) return { prompts: [] };
    return {
      prompts: await allPages(
        (cursor) => client.request({ method: 'prompts/list', params: { cursor } }, ListPromptsResultSchema),
        (r) => r.prompts,
      ),
    };
  }
  if (!capabilities.resources) return { resources: [], resourceTemplates: [] };
  const [resources, resourceTemplates] = await Promise.all([
    allPages(
      (cursor) => client.request({ method: 'resources/list', params: { cursor } }, ListResourcesResultSchema),
      (r) => r.resources,
    ),
    allPages(
      (cursor) => client.request({ method: 'resources/templates/list', params: { cursor } }, ListResourceTemplatesResultSchema),
      (r) => r.resourceTemplates,
    ),
  ]);
  return { resources, resourceTemplates };
}

async function allPages<R extends { nextCursor?: string }, T>(page: (cursor: string | undefined) => Promise<R>, items: (result: R) => T[]): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const result = await page(cursor);
    all.push(...items(result));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return all;
}
