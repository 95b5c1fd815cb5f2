import type { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { ClientRequest, ErrorCode, Implementation, McpError, RequestId, Result, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { credentialCallerOf, type McpAccessGrant } from '../access/mcp-access';
import { Catalogue } from '../catalogue/catalogue';
import { Catalogues } from '../catalogue/catalogues';
import { ServerRegistry } from '../registry/server-registry';
import { EventStream } from '../transports/event-stream';
import { DISCOVER_FIRST_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/protocol-versions';
import { isLoggingLevel, logRelay } from '../transports/stateless-calls';
import { CatalogueKind, UpstreamAnswer, UpstreamNotification, UpstreamPool } from '../upstreams/upstream-pool';
import { UpstreamSessions } from '../upstreams/upstream-sessions';
import { InputRoundTrips } from './input-round-trips';
import { HEADER_MISMATCH, SERVER_INFO_KEY } from '../protocol/envelope';
import { paramHeaderDeclarations, paramHeaderMismatch } from '../protocol/param-headers';
import { DiscoverFirstRequest } from './discover-first-request';

/** The revision's cache hint on lists and reads. */
interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * A federated list changes when an upstream's catalogue does or the grant does, neither of which
 * the gateway can promise a lifetime for; and what a list shows depends on the caller (its grant,
 * its role against the server's tool roles, a key's tool scope).
 * So: fresh every time, and never shared across callers (`subscriptions/listen` says when to re-list).
 */
const FEDERATED_LIST: CacheHint = { ttlMs: 0, cacheScope: 'private' };

const KEEP_ALIVE_MS = 20_000;

/** A JSON-RPC error the gateway answers in-band (HTTP 200), worded without the SDK's `MCP error` prefix. */
class InBandError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** HTTP status of the answer: 200 for an in-band error, 400 for what the transport refuses. */
    readonly status = 200,
  ) {
    super(message);
  }
}

interface Served {
  request: DiscoverFirstRequest;
  serverId: string | null;
  grant: McpAccessGrant;
  catalogue: Catalogue;
  signal: AbortSignal;
  progress?: (params: Record<string, unknown>) => void;
  /** The log messages the client asked for with `_meta["io.modelcontextprotocol/logLevel"]`. */
  log?: (notification: UpstreamNotification) => void;
}

type Handler = (served: Served) => Promise<Result>;

/**
 * The discover-first era (2026-07-28) on `/mcp` and `/servers/{id}/mcp`, beside the older versions on the
 * same endpoints: no `initialize`, no session. Each POST carries one request, answered from the
 * caller's catalogue over the pool's upstream sessions, in JSON — or on an SSE stream of its
 * own when the client asked for progress (closing that stream cancels the call upstream) and for
 * `subscriptions/listen`, whose stream carries the list changes the client opted in to.
 */
@Injectable()
export class DiscoverFirstEndpoint {
  private readonly handlers: Readonly<Record<string, Handler>>;

  constructor(
    private readonly catalogues: Catalogues,
    private readonly pool: UpstreamPool,
    private readonly registry: ServerRegistry,
    private readonly roundTrips: InputRoundTrips,
  ) {
    this.handlers = {
      'server/discover': async ({ catalogue, serverId }) => ({
        supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
        capabilities: discoverFirstCapabilities(catalogue, {
          subscribe: catalogue.upstreams.some((upstream) => this.subscribable(upstream)),
          logging: catalogue.upstreams.some((upstream) => this.logsPerCall(upstream) && this.pool.knownOffer(upstream).capabilities.logging !== undefined),
        }),
        ...(this.instructionsOf(serverId) ? { instructions: this.instructionsOf(serverId) } : {}),
        ...FEDERATED_LIST,
      }),
      'tools/list': async ({ catalogue, request }) => {
        if (!catalogue.capabilities.tools) throw methodNotFound();
        return { ...catalogue.listTools(request.params['cursor']), ...FEDERATED_LIST };
      },
      'tools/call': async (served) => {
        if (!served.catalogue.capabilities.tools) throw methodNotFound();
        const name = stringParam(served.request, 'name');
        const call = (upstream: string, params: Record<string, unknown>) => this.call(served, upstream, { method: 'tools/call', params } as ClientRequest);
        // An unknown tool is refused (and recorded by the audit) before its headers are looked at.
        if (!served.catalogue.hasTool(name)) return served.catalogue.callTool({ ...upstreamParams(served.request), name }, call);
        const declarations = paramHeaderDeclarations(served.catalogue.listedTool(name)?.item.inputSchema);
        const mismatch = declarations.length > 0 ? paramHeaderMismatch(declarations, served.request.params['arguments'], served.request.header) : undefined;
        if (mismatch) throw new InBandError(HEADER_MISMATCH, `Bad Request: header mismatch: ${mismatch}`, undefined, 400);
        return served.catalogue.callTool({ ...upstreamParams(served.request), name }, call);
      },
      'prompts/list': async ({ catalogue, request }) => {
        if (!catalogue.capabilities.prompts) throw methodNotFound();
        return { ...catalogue.listPrompts(request.params['cursor']), ...FEDERATED_LIST };
      },
      'prompts/get': async (served) => {
        if (!served.catalogue.capabilities.prompts) throw methodNotFound();
        const prompt = served.catalogue.prompt(stringParam(served.request, 'name'));
        return this.call(served, prompt.upstream, { method: 'prompts/get', params: { ...upstreamParams(served.request), name: prompt.original } } as ClientRequest);
      },
      'resources/list': async ({ catalogue, request }) => {
        if (!catalogue.capabilities.resources) throw methodNotFound();
        return { ...catalogue.listResources(request.params['cursor']), ...FEDERATED_LIST };
      },
      'resources/templates/list': async ({ catalogue, request }) => {
        if (!catalogue.capabilities.resources) throw methodNotFound();
        return { ...catalogue.listResourceTemplates(request.params['cursor']), ...FEDERATED_LIST };
      },
      'resources/read': async (served) => {
        if (!served.catalogue.capabilities.resources) throw methodNotFound();
        const asked = stringParam(served.request, 'uri');
        // The revision answers an unknown resource with Invalid params (the older -32002 is retired).
        const target = served.catalogue.resource(asked, ErrorCode.InvalidParams);
        const result = (await this.call(served, target.upstream, {
          method: 'resources/read',
          params: { ...upstreamParams(served.request), uri: target.original },
        })) as Result & { contents?: unknown };
        if (result['resultType'] === 'input_required') return result;
        // An upstream of the older versions gives no hint: the content may change at any time.
        return { ...Catalogue.readAs(result, target, asked), ttlMs: numberOr(result['ttlMs'], 0), cacheScope: 'private' };
      },
      'completion/complete': async (served) => {
        if (!served.catalogue.capabilities.completions) throw methodNotFound();
        const target = served.catalogue.completion(served.request.params['ref']);
        return this.forward(served, target.upstream, { method: 'completion/complete', params: { ...upstreamParams(served.request), ref: target.ref } } as ClientRequest);
      },
    };
  }

  /** Answers one discover-first request (its era, version and headers already checked). */
  async serve(res: ServerResponse, request: DiscoverFirstRequest, serverId: string | null, grant: McpAccessGrant): Promise<void> {
    if (request.method === 'subscriptions/listen') return this.listen(res, request, serverId, grant);
    const handler = Object.hasOwn(this.handlers, request.method) ? this.handlers[request.method] : undefined;
    if (!handler) return sendJson(res, 404, errorMessage(request.id, methodNotFound()));

    const abort = new AbortController();
    // On this revision closing the response stream is how a client cancels its request.
    const onClose = () => abort.abort(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    res.once('close', onClose);
    const meta = request.params['_meta'] as Record<string, unknown>;
    const token = meta['progressToken'];
    const level = meta[LOG_LEVEL_KEY];
    // Opened by the first progress or log message: an answer with nothing before it goes in JSON.
    const stream = new EventStream(res);
    let answer: unknown;
    let status = 200;
    try {
      const catalogue = await this.catalogues.open({ serverId, grant, sessions: false });
      const result = await handler({
        request,
        serverId,
        grant,
        catalogue,
        signal: abort.signal,
        ...(typeof token === 'string' || typeof token === 'number'
          ? { progress: (progress) => stream.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { ...progress, progressToken: token } }) }
          : {}),
        // The revision sends log messages only to a request that names its level.
        ...(isLoggingLevel(level) ? { log: logRelay(level, (notification) => stream.send({ jsonrpc: '2.0', ...notification })) } : {}),
      });
      answer = { jsonrpc: '2.0', id: request.id, result: this.complete(result, serverId) };
    } catch (error) {
      answer = errorMessage(request.id, error);
      if (error instanceof InBandError) status = error.status;
    } finally {
      res.off('close', onClose);
    }
    if (abort.signal.aborted || res.writableEnded) return;
    if (stream.opened) return stream.end(answer);
    sendJson(res, status, answer);
  }

  /**
   * `subscriptions/listen`: acknowledges the list changes the gateway can tell (those of the kinds
   * the catalogue offers) and the resource subscriptions it could make upstream, then relays each as it
   * happens until the client closes the stream.
   */
  private async listen(res: ServerResponse, request: DiscoverFirstRequest, serverId: string | null, grant: McpAccessGrant): Promise<void> {
    const catalogue = await this.catalogues.open({ serverId, grant, sessions: false });
    const asked = (request.params['notifications'] ?? {}) as Record<string, unknown>;
    const honoured: Record<string, unknown> = {};
    if (asked['toolsListChanged'] === true && catalogue.capabilities.tools) honoured['toolsListChanged'] = true;
    if (asked['promptsListChanged'] === true && catalogue.capabilities.prompts) honoured['promptsListChanged'] = true;
    if (asked['resourcesListChanged'] === true && catalogue.capabilities.resources) honoured['resourcesListChanged'] = true;
    const subscription = { 'io.modelcontextprotocol/subscriptionId': request.id };
    const stream = new EventStream(res);
    let closed = false;
    const cleanups: (() => void)[] = [];
    res.once('close', () => {
      closed = true;
      for (const cleanup of cleanups) cleanup();
    });
    const resources = await this.subscribeResources(asked['resourceSubscriptions'], catalogue, grant, (uri) =>
      stream.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: subscription } }),
    );
    cleanups.push(() => void resources.close());
    if (closed) return void resources.close();
    if (resources.uris.length > 0) honoured['resourceSubscriptions'] = resources.uris;
    stream.send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: honoured, _meta: subscription } });
    const wanted: Record<CatalogueKind, string> = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' };
    cleanups.push(
      this.pool.onCatalogueChange((upstream, kind) => {
        if (!honoured[wanted[kind]]) return;
        void this.catalogues.open({ serverId, grant, sessions: false }).then((now) => {
          if (now.upstreams.includes(upstream)) stream.send({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed`, params: { _meta: subscription } });
        });
      }),
    );
    // A change of the registry (tool roles, selections) may change what this caller sees, no upstream changing.
    let shown = catalogue.shown();
    cleanups.push(
      this.registry.onChange(() => {
        void this.catalogues.open({ serverId, grant, sessions: false }).then((now) => {
          const before = shown;
          shown = now.shown();
          for (const kind of ['tools', 'prompts', 'resources'] as const) {
            if (honoured[wanted[kind]] && shown[kind] !== before[kind])
              stream.send({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed`, params: { _meta: subscription } });
          }
        });
      }),
    );
    const keepAlive = setInterval(() => stream.comment(), KEEP_ALIVE_MS);
    cleanups.push(() => clearInterval(keepAlive));
  }

  /**
   * The resources of a listen stream, subscribed upstream on sessions of the stream's own (an
   * upstream of the older versions tells a session what changed; closing them ends the
   * subscriptions): the URIs it could subscribe, as the client named them, and each update under
   * that name.
   */
  private async subscribeResources(
    asked: unknown,
    catalogue: Catalogue,
    grant: McpAccessGrant,
    updated: (uri: string) => void,
  ): Promise<{ uris: string[]; close(): Promise<void> }> {
    const uris: string[] = [];
    if (!Array.isArray(asked) || asked.length === 0) return { uris, close: async () => undefined };
    const caller = credentialCallerOf(grant);
    const sessions = new UpstreamSessions(
      this.pool,
      {
        capabilities: () => ({}),
        request: async () => {
          throw new McpError(ErrorCode.MethodNotFound, 'A subscription stream answers no requests');
        },
        notify: async (upstream, notification) => {
          const uri = notification.params?.['uri'];
          if (notification.method !== 'notifications/resources/updated' || typeof uri !== 'string') return;
          const exposed = catalogue.exposedUri(upstream, uri);
          if (uris.includes(exposed)) updated(exposed);
        },
      },
      () => caller,
    );
    await Promise.all(
      [...new Set(asked.filter((uri): uri is string => typeof uri === 'string'))].map(async (uri) => {
        const target = catalogue.resourceIfAny(uri);
        if (!target || !this.subscribable(target.upstream)) return;
        try {
          await sessions.forward(target.upstream, { method: 'resources/subscribe', params: { uri: target.original } });
          uris.push(uri);
        } catch {
          // Not acknowledged: the client knows it will hear nothing of this one.
        }
      }),
    );
    return { uris, close: () => sessions.close() };
  }

  /** Whether the upstream's log messages during a call come on the call's own stream (older Streamable HTTP, or the revision's). */
  private logsPerCall(upstream: string): boolean {
    return this.speaksDiscoverFirst(upstream) || this.pool.knownOffer(upstream).logsPerCall === true;
  }

  /**
   * Whether the gateway can subscribe to the upstream's resources for a client of the revision:
   * an upstream of either era that offers it (one of the revision on a listen stream of the
   * stream's own session, see DiscoverFirstUpstreamTransport).
   */
  private subscribable(upstream: string): boolean {
    return this.pool.knownOffer(upstream).capabilities.resources?.subscribe === true;
  }

  private async forward(served: Served, upstream: string, request: ClientRequest): Promise<Result> {
    const { progress, log } = served;
    return this.pool.forward(upstream, request, {
      signal: served.signal,
      server: served.serverId,
      caller: credentialCallerOf(served.grant),
      elicitsUrls: served.request.clientCapabilities.elicitation?.url !== undefined,
      ...(progress ? { onprogress: (p) => progress({ ...p }) } : {}),
      ...(log && this.logsPerCall(upstream) ? { onnotification: log } : {}),
    });
  }

  /**
   * A call that may need the client's input (tools/call, prompts/get, resources/read). An upstream
   * of the revision asks for it itself; one of the older versions asks on a session: the call gets
   * one of its own, declaring the client's capabilities, and the question goes back to the client
   * as an input request, the call continuing when its retry brings the answer.
   */
  private async call(served: Served, upstream: string, request: ClientRequest): Promise<Result> {
    if (this.speaksDiscoverFirst(upstream)) return this.forward(served, upstream, request);
    const { requestState, inputResponses, ...params } = request.params as Record<string, unknown>;
    const principal = served.grant.principal;
    if (typeof requestState === 'string' && isRecord(inputResponses)) {
      const trip = this.roundTrips.resume(principal, requestState, inputResponses);
      if (trip) return this.roundTrips.step(trip, served.signal);
    }
    const plain = { ...request, params } as ClientRequest;
    const capabilities = served.request.clientCapabilities;
    if (!capabilities.elicitation && !capabilities.sampling && !capabilities.roots) return this.forward(served, upstream, plain);
    return this.roundTrips.step(this.roundTrips.start(principal, capabilities, upstream, plain, credentialCallerOf(served.grant)), served.signal);
  }

  /** Whether the gateway reaches the upstream in the 2026-07-28 revision. */
  private speaksDiscoverFirst(upstream: string): boolean {
    return this.pool.health(upstream)[0]?.protocolVersion === DISCOVER_FIRST_PROTOCOL_VERSIONS[0];
  }

  /** Every result of this revision says what it is and who answered. */
  private complete(result: Result, serverId: string | null): Result {
    // An upstream of the revision may answer input_required: the client answers it and retries.
    const resultType = typeof result['resultType'] === 'string' ? result['resultType'] : 'complete';
    return { ...result, resultType, _meta: { ...result._meta, [SERVER_INFO_KEY]: this.serverInfo(serverId) } };
  }

  private serverInfo(serverId: string | null): Implementation {
    const name = serverId === null ? undefined : this.registry.server(serverId)?.name;
    return { name: name ?? 'Arbor MCP gateway', version: '1.0.0' };
  }

  private instructionsOf(serverId: string | null): string | undefined {
    return serverId === null ? undefined : this.registry.server(serverId)?.description || undefined;
  }
}

/**
 * What the catalogue offers, as this revision advertises it: list changes and resource updates (of
 * the upstreams the gateway can subscribe to) arrive on a `subscriptions/listen` stream, which
 * the gateway serves; log messages on the request's own stream (from the upstreams that send them
 * there: older Streamable HTTP ones and those of the revision).
 */
function discoverFirstCapabilities(catalogue: Catalogue, delivered: { subscribe: boolean; logging: boolean }): ServerCapabilities {
  const offered = catalogue.capabilities;
  const { subscribe } = delivered;
  return {
    ...(offered.tools ? { tools: { listChanged: true } } : {}),
    ...(offered.resources ? { resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) } } : {}),
    ...(offered.prompts ? { prompts: { listChanged: true } } : {}),
    ...(offered.completions ? { completions: {} } : {}),
    ...(delivered.logging ? { logging: {} } : {}),
  };
}

const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';

/**
 * The request's params as they go upstream: the envelope stays (an upstream of the revision reads
 * the client's own capabilities and answers input requests to it; the pool takes it off for the
 * older versions), and so do `inputResponses` and `requestState` of a retried call.
 */
function upstreamParams(request: DiscoverFirstRequest): Record<string, unknown> {
  return request.params;
}

function stringParam(request: DiscoverFirstRequest, key: string): string {
  const value = request.params[key];
  if (typeof value !== 'string') throw new InBandError(ErrorCode.InvalidParams, `Invalid params: ${key} must be a string`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : fallback;
}

function methodNotFound(): InBandError {
  return new InBandError(ErrorCode.MethodNotFound, 'Method not found');
}

function errorMessage(id: RequestId, error: unknown) {
  const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
  const known = error instanceof InBandError || (error instanceof McpError && Number.isSafeInteger(code));
  // The gateway's own McpErrors (an upstream unavailable, a timeout) lose the SDK's prefix; an upstream's answer is its own.
  const prefix = `MCP error ${String(code)}: `;
  const text = error instanceof McpError && !(error instanceof UpstreamAnswer) && message?.startsWith(prefix) ? message.slice(prefix.length) : message;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: known ? (code as number) : ErrorCode.InternalError,
      message: known ? (text ?? 'Internal error') : 'Internal error',
      ...(known && data !== undefined ? { data } : {}),
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
