import { Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC, RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  CallToolResult,
  ClientRequest,
  CompleteRequestSchema,
  CompleteResult,
  GetPromptRequestSchema,
  GetPromptResult,
  LoggingLevel,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  Notification,
  ReadResourceRequestSchema,
  ReadResourceResult,
  Request,
  RequestId,
  Result,
  ResultSchema,
  RootsListChangedNotificationSchema,
  ServerCapabilities,
  ServerNotification,
  ServerRequest,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { credentialCallerOf, McpAccessGrant, McpAccessPolicy } from '../access/mcp-access';
import { ServerRegistry } from '../registry/server-registry';
import { CatalogueKind, UpstreamCaller, UpstreamNotification, UpstreamPool } from '../upstreams/upstream-pool';
import { SessionForwardOptions, UpstreamSessions } from '../upstreams/upstream-sessions';
import { Catalogue } from '../catalogue/catalogue';
import { Catalogues } from '../catalogue/catalogues';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One validator for every server: building one costs a millisecond, too much per stateless request. */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

export interface FederatedSessionOptions {
  /** The virtual server, or null for `/mcp` (every server of the grant, names prefixed). */
  serverId: string | null;
  grant: McpAccessGrant;
  /**
   * Whether the session has upstream sessions of its own (stateful HTTP, SSE, WebSocket), so
   * upstream requests and notifications reach its client; otherwise the pool's shared ones serve it.
   */
  ownUpstreamSessions: boolean;
  /**
   * Without upstream sessions of its own: where the caller's log level is kept, and the relay of a
   * call's log messages (those the upstream sends on the call's own stream) to the client.
   */
  statelessLogging?: StatelessLogging;
}

export interface StatelessLogging {
  setLevel(level: LoggingLevel): void;
  relay(send: (notification: UpstreamNotification) => void): (notification: UpstreamNotification) => void;
}

/** Opens federated MCP servers: one SDK Server per downstream session or stateless request. */
@Injectable()
export class Federation {
  constructor(
    private readonly pool: UpstreamPool,
    private readonly catalogues: Catalogues,
    private readonly registry: ServerRegistry,
    private readonly access: McpAccessPolicy,
  ) {}

  async open(options: FederatedSessionOptions): Promise<FederatedSession> {
    const session = new FederatedSession(this.pool, this.catalogues, options, this.registry, this.access);
    const catalogue = await session.catalogue();
    const server = options.serverId === null ? undefined : this.registry.server(options.serverId);
    session.build(catalogue, server?.name, server?.description);
    return session;
  }
}

/**
 * One downstream session (or stateless request) of a virtual server or of `/mcp`: an SDK Server
 * whose handlers answer from the caller's catalogue and forward calls to the upstreams.
 */
export class FederatedSession {
  server!: Server;
  private capabilities: ServerCapabilities = {};
  private grant: McpAccessGrant;
  private readonly upstreamSessions?: UpstreamSessions;
  private readonly caller: UpstreamCaller;
  private unsubscribe?: () => void;
  private unsubscribeRegistry?: () => void;
  private unsubscribeGrant?: () => void;
  /** What the client was last shown of each list (sessions only): a registry change is announced when it changes. */
  private shown?: ReturnType<Catalogue['shown']>;
  private closed = false;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly catalogues: Catalogues,
    private readonly options: FederatedSessionOptions,
    private readonly registry?: ServerRegistry,
    private readonly access?: McpAccessPolicy,
  ) {
    this.grant = options.grant;
    if (options.ownUpstreamSessions) {
      this.upstreamSessions = new UpstreamSessions(
        pool,
        {
          capabilities: () => this.server.getClientCapabilities() ?? {},
          request: (upstream, request, signal, related) => this.relayRequest(upstream, request, signal, related),
          notify: (upstream, notification, related) => this.relayNotification(upstream, notification, related),
        },
        () => credentialCallerOf(this.grant),
      );
    }
    this.caller = this.upstreamSessions ?? pool;
  }

  get principal(): string {
    return this.grant.principal;
  }

  /**
   * The caller's grant as of its latest request (the servers `/mcp` shows, the roles, a key's tool
   * scope): when what it permits changed, the client is told which lists changed.
   */
  updateGrant(grant: McpAccessGrant): void {
    const before = this.grant;
    this.grant = grant;
    if (this.shown && !sameAccess(before, grant)) void this.announceShownChanges();
  }

  /** The catalogue as the caller sees it now (its grant, the upstreams' lists). */
  catalogue(): Promise<Catalogue> {
    return this.catalogues.open({ serverId: this.options.serverId, grant: this.grant, sessions: this.options.ownUpstreamSessions });
  }

  /** Whether a call's log messages reach the client on the call's own stream (stateless, an upstream logs). */
  relaysLogs(): boolean {
    return !this.upstreamSessions && this.options.statelessLogging !== undefined && this.capabilities.logging !== undefined;
  }

  /** Whether the session's server has tool handlers: capabilities are fixed when it is built. */
  offersTools(): boolean {
    return this.capabilities.tools !== undefined;
  }

  /** A call on the session's upstream sessions (or the pool's shared ones), as its handlers make it. */
  forward(upstream: string, request: ClientRequest, options: SessionForwardOptions): Promise<Result> {
    return this.caller.forward(upstream, request, { ...options, ...this.callFor() });
  }

  /** Where and for whom the session's calls are made: its server, its caller, whether the client takes URL elicitations. */
  private callFor(): { server: string | null; caller: ReturnType<typeof credentialCallerOf>; elicitsUrls: boolean } {
    return { server: this.options.serverId, caller: credentialCallerOf(this.grant), elicitsUrls: this.server?.getClientCapabilities()?.elicitation?.url !== undefined };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribeRegistry?.();
    this.unsubscribeGrant?.();
    await this.upstreamSessions?.close();
    await this.server.close().catch(() => undefined);
  }

  /** Creates the SDK Server announcing what the catalogue's upstreams offer. */
  build(catalogue: Catalogue, name = 'Arbor MCP gateway', instructions?: string): void {
    const capabilities = catalogue.capabilities;
    this.capabilities = capabilities;
    const server = new Server({ name, version: '1.0.0' }, { capabilities, jsonSchemaValidator: SCHEMA_VALIDATOR, ...(instructions ? { instructions } : {}) });
    this.server = server;
    const forward = async (upstream: string, request: ClientRequest, extra: Extra) => {
      const relayed: Promise<void>[] = [];
      const logs = this.relaysLogs()
        ? this.options.statelessLogging?.relay((notification) => void relayed.push(extra.sendNotification(notification as ServerNotification).catch(() => undefined)))
        : undefined;
      const result = await this.caller.forward(upstream, request, { ...callOptions(extra, relayed), ...(logs ? { onnotification: logs } : {}), ...this.callFor() });
      // Progress the upstream sent before its answer reaches the client before that answer.
      if (relayed.length > 0) await Promise.all(relayed);
      return result;
    };
    if (capabilities.tools) {
      server.setRequestHandler(ListToolsRequestSchema, async (request) => (await this.catalogue()).listTools(request.params?.cursor));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const catalogue = await this.catalogue();
        return (await catalogue.callTool(request.params, (upstream, params) => forward(upstream, { method: 'tools/call', params }, extra))) as CallToolResult;
      });
    }

    if (capabilities.prompts) {
      server.setRequestHandler(ListPromptsRequestSchema, async (request) => (await this.catalogue()).listPrompts(request.params?.cursor));
      server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
        const prompt = (await this.catalogue()).prompt(request.params.name);
        return (await forward(prompt.upstream, { method: 'prompts/get', params: { ...request.params, name: prompt.original } }, extra)) as GetPromptResult;
      });
    }

    if (capabilities.resources) {
      server.setRequestHandler(ListResourcesRequestSchema, async (request) => (await this.catalogue()).listResources(request.params?.cursor));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request) => (await this.catalogue()).listResourceTemplates(request.params?.cursor));
      server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
        const asked = request.params.uri;
        const target = (await this.catalogue()).resource(asked, RESOURCE_NOT_FOUND);
        const result = (await forward(target.upstream, { method: 'resources/read', params: { ...request.params, uri: target.original } }, extra)) as ReadResourceResult;
        // The client asked by the name it was shown: answer under that name.
        return Catalogue.readAs(result, target, asked);
      });
      if (capabilities.resources.subscribe) {
        for (const schema of [SubscribeRequestSchema, UnsubscribeRequestSchema]) {
          server.setRequestHandler(schema, async (request, extra) => {
            const target = (await this.catalogue()).resource(request.params.uri, RESOURCE_NOT_FOUND);
            return forward(target.upstream, { method: request.method, params: { ...request.params, uri: target.original } }, extra);
          });
        }
      }
    }

    if (capabilities.completions) {
      server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
        const target = (await this.catalogue()).completion(request.params.ref);
        return (await forward(target.upstream, { method: 'completion/complete', params: { ...request.params, ref: target.ref } } as ClientRequest, extra)) as CompleteResult;
      });
    }

    if (capabilities.logging) {
      // Upstreams filter their own messages; without a session the gateway keeps the level and filters.
      server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
        if (!this.upstreamSessions) {
          this.options.statelessLogging?.setLevel(request.params.level);
          return {};
        }
        const catalogue = await this.catalogue();
        const logging = catalogue.upstreams.filter((u) => this.pool.knownOffer(u).capabilities.logging);
        await Promise.allSettled(logging.map((u) => forward(u, { method: 'logging/setLevel', params: request.params }, extra)));
        return {};
      });
    }

    if (this.upstreamSessions) {
      const sessions = this.upstreamSessions;
      server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
        await Promise.allSettled(sessions.opened.map((client) => client.sendRootsListChanged()));
      });
      this.unsubscribe = this.pool.onCatalogueChange((upstream, kind) => void this.announce(upstream, kind));
      // Tool roles, selections and the like change what the client may see without any upstream changing.
      this.shown = catalogue.shown();
      this.unsubscribeRegistry = this.registry?.onChange(() => void this.announceShownChanges());
      this.unsubscribeGrant = this.access?.onGrantChange((principal, change) => {
        if (principal === this.grant.principal) this.updateGrant(change(this.grant));
      });
    }
  }

  /** Tells the client which lists it sees changed (a server's tool roles or selections, the caller's role, a key's scope). */
  private async announceShownChanges(): Promise<void> {
    const server = this.server;
    if (this.closed || !server.transport) return;
    const shown = (await this.catalogue()).shown();
    const before = this.shown;
    this.shown = shown;
    if (!before) return;
    const capabilities = this.capabilities;
    const sends: (() => Promise<void>)[] = [];
    if (capabilities.tools && shown.tools !== before.tools) sends.push(() => server.sendToolListChanged());
    if (capabilities.resources && shown.resources !== before.resources) sends.push(() => server.sendResourceListChanged());
    if (capabilities.prompts && shown.prompts !== before.prompts) sends.push(() => server.sendPromptListChanged());
    await Promise.all(sends.map((send) => send().catch(() => undefined)));
  }

  /** Tells the client a list it sees may have changed. */
  private async announce(upstream: string, kind: CatalogueKind): Promise<void> {
    const server = this.server;
    if (this.closed || !server.transport || !(await this.catalogue()).upstreams.includes(upstream)) return;
    const capabilities = this.capabilities;
    const send =
      kind === 'tools' && capabilities.tools
        ? () => server.sendToolListChanged()
        : kind === 'resources' && capabilities.resources
          ? () => server.sendResourceListChanged()
          : kind === 'prompts' && capabilities.prompts
            ? () => server.sendPromptListChanged()
            : undefined;
    await send?.().catch(() => undefined);
  }

  private relayRequest(upstream: string, request: Request, signal: AbortSignal, related?: RequestId) {
    return this.server.request(request as ServerRequest, ResultSchema, {
      signal,
      // A person answering an elicitation may take as long as the upstream waits for its call.
      timeout: this.pool.definition(upstream)?.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MSEC,
      ...(related !== undefined ? { relatedRequestId: related } : {}),
    });
  }

  private async relayNotification(upstream: string, notification: Notification, related?: RequestId): Promise<void> {
    let relayed = notification;
    if (notification.method === 'notifications/resources/updated' && typeof notification.params?.['uri'] === 'string') {
      const uri = (await this.catalogue()).exposedUri(upstream, notification.params['uri']);
      relayed = { ...notification, params: { ...notification.params, uri } };
    }
    await this.server.notification(relayed as ServerNotification, related !== undefined ? { relatedRequestId: related } : {}).catch(() => undefined);
  }
}

/** Whether two grants permit the same: the same servers, roles and tool scope. */
function sameAccess(a: McpAccessGrant, b: McpAccessGrant): boolean {
  const sameSet = (x: ReadonlySet<string> | undefined, y: ReadonlySet<string> | undefined) => x === y || (x?.size === y?.size && [...(x ?? [])].every((item) => y?.has(item)));
  return (
    (a.servers === b.servers || (a.servers.length === b.servers.length && a.servers.every((id, index) => b.servers[index] === id))) &&
    sameSet(a.operates, b.operates) &&
    sameSet(a.tools, b.tools)
  );
}

/** The older versions' "Resource not found" (the 2026-07-28 revision answers Invalid params). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The client's cancellation, its progress token (progress comes back under it, each relay kept in
 * `relayed`) and its request id.
 */
function callOptions(extra: Extra, relayed: Promise<void>[]): SessionForwardOptions {
  const token = extra._meta?.progressToken;
  return {
    signal: extra.signal,
    relatedRequestId: extra.requestId,
    ...(token !== undefined
      ? {
          onprogress: (progress) =>
            void relayed.push(extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } }).catch(() => undefined)),
        }
      : {}),
  };
}
