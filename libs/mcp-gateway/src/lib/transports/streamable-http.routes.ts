import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest, JSONRPCMessage, McpError, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { DirectRoutes } from '@arbor/platform';
import { DiscoverFirstEndpoint } from '../discover-first/discover-first-endpoint';
import { eraOfRequest } from '../discover-first/discover-first-request';
import { InputRoundTrips } from '../discover-first/input-round-trips';
import { FederatedSession, Federation } from '../federation/federated-session';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';
import type { McpAccessGrant } from '../access/mcp-access';
import { DownstreamSessions } from './downstream-sessions';
import { BoundedEventStore } from './event-store';
import { EventStream } from './event-stream';
import { HotPath, HotRequest } from './hot-path';
import { McpEdge, refusal, sendRefusal } from './mcp-edge';
import { HotStream, SessionTransport } from './session-transport';
import { FORWARDED_HEADER, SessionOwners } from './session-owners';
import { StatelessCalls } from './stateless-calls';

/**
 * Streamable HTTP at `/mcp` and `/servers/{id}/mcp`, every method, served as direct routes (below
 * Express and Nest: the framework's router, body parser and filters cost more than a tool call's
 * own work; McpEdge reads the body). Stateless by default: each POST answered in JSON over the
 * pool's shared upstream sessions, the common requests by the hot path, the others by a fresh
 * SDK server. Stateful: sessions (Mcp-Session-Id) with SSE streams, the GET stream, resumption
 * and DELETE, each with upstream sessions of its own.
 */
@Injectable()
export class StreamableHttpRoutes implements OnModuleInit {
  private readonly logger = new Logger('StreamableHttp');

  constructor(
    private readonly routes: DirectRoutes,
    private readonly edge: McpEdge,
    private readonly federation: Federation,
    private readonly sessions: DownstreamSessions,
    private readonly hotPath: HotPath,
    private readonly discoverFirst: DiscoverFirstEndpoint,
    private readonly calls: StatelessCalls,
    private readonly owners: SessionOwners,
    private readonly roundTrips: InputRoundTrips,
    @Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions,
  ) {}

  onModuleInit(): void {
    this.routes.add(
      { route: '/mcp', endpoints: [{ methods: ['*'], path: '/mcp' }], matches: (_method, path) => isUnionPath(path), handle: (req, res) => this.handle(req, res, null) },
      {
        route: '/servers/:id/mcp',
        endpoints: [{ methods: ['*'], path: '/servers/{id}/mcp' }],
        matches: (_method, path) => serverIdIn(path) !== undefined,
        handle: (req, res, path) => this.handle(req, res, serverIdIn(path) as string),
      },
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse, serverId: string | null): Promise<void> {
    try {
      const admission = await this.edge.admit(req, serverId, req.method === 'POST');
      if ('refusal' in admission) return sendRefusal(res, admission.refusal);
      const era = eraOfRequest(req.method ?? 'GET', req.headers, admission.body);
      if ('refusal' in era) return sendRefusal(res, era.refusal);
      if (era.era === 'discover-first') {
        // This revision defines no notification a client sends over HTTP: taken, and nothing to do.
        if (era.message.kind === 'notification') return void res.writeHead(202).end();
        // A retry carrying the answer the call waits for on another replica goes there.
        const waiting = req.headers[FORWARDED_HEADER] === undefined ? await this.waitingElsewhere(era.message.params) : undefined;
        if (waiting) return this.owners.forward(waiting, req, res, admission.body);
        return await this.discoverFirst.serve(res, era.message, serverId, admission.grant);
      }
      if (this.options.stateful) await this.stateful(req, res, serverId, admission.grant, admission.body);
      else await this.stateless(req, res, serverId, admission.grant, admission.body);
    } catch (error) {
      this.logger.error(`MCP request failed: ${error instanceof Error ? error.message : String(error)}`);
      sendRefusal(res, refusal(500, 'Internal error', undefined, -32603));
    }
  }

  /** The replica holding the call a 2026-07-28 retry continues, when that is another one. */
  private async waitingElsewhere(params: Record<string, unknown>): Promise<string | undefined> {
    const state = params['requestState'];
    if (typeof state !== 'string' || params['inputResponses'] === undefined || this.roundTrips.holds(state)) return undefined;
    return this.owners.ownerOfPending(state);
  }

  private async stateless(req: IncomingMessage, res: ServerResponse, serverId: string | null, grant: McpAccessGrant, body: unknown): Promise<void> {
    if (req.method !== 'POST') {
      return sendRefusal(res, { ...refusal(405, 'Method not allowed: this gateway runs without sessions (POST only)'), headers: { allow: 'POST' } });
    }
    const hot = this.hotPath.accept(req.headers, body);
    if (hot) return this.answerHot(res, hot, serverId, grant);
    const cancelled = cancelledRequest(body);
    if (cancelled !== undefined) this.calls.cancel(grant.principal, serverId, cancelled);
    const session = await this.federation.open({
      serverId,
      grant,
      ownUpstreamSessions: false,
      statelessLogging: {
        setLevel: (level) => this.calls.setLogLevel(grant.principal, serverId, level),
        relay: (send) => this.calls.logRelay(grant.principal, serverId, send),
      },
    });
    // Progress and log messages travel on the request's own SSE stream; everything else is answered in JSON.
    const streams = asksProgress(body) || (session.relaysLogs() && mayLog(body));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streams });
    const id = requestIdOf(body);
    // Closing the request's server aborts its handlers, and so the call upstream.
    const untrack = id === undefined ? undefined : this.calls.track(grant.principal, serverId, id, () => void session.close());
    res.on('close', () => {
      untrack?.();
      void session.close();
    });
    await session.server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /**
   * A stateless tools/call, tools/list or ping, answered in JSON as the SDK transport would — or,
   * once the upstream sends a log message the caller wants during the call, on an SSE stream
   * carrying those messages and then the answer.
   */
  private async answerHot(res: ServerResponse, request: HotRequest, serverId: string | null, grant: McpAccessGrant): Promise<void> {
    // A client that goes away cancels its call upstream, as closing the SDK server does.
    const abort = new AbortController();
    let gone = false;
    const onClose = () => {
      gone = true;
      abort.abort(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    };
    res.once('close', onClose);
    // So does its notifications/cancelled, which arrives in a POST of its own.
    const untrack = this.calls.track(grant.principal, serverId, request.id, () => abort.abort(new McpError(ErrorCode.ConnectionClosed, 'Request cancelled')));
    const stream = new EventStream(res);
    const onlog = this.calls.logRelay(grant.principal, serverId, (notification) => stream.send({ jsonrpc: '2.0', ...notification }));
    const answer = await this.hotPath.answer(request, serverId, grant, abort.signal, onlog).finally(untrack);
    res.off('close', onClose);
    // A cancelled call still ends its POST (the client no longer waits for what it says).
    if (gone || res.writableEnded) return;
    if (stream.opened) return stream.end(answer);
    const text = JSON.stringify(answer);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  }

  private async stateful(req: IncomingMessage, res: ServerResponse, serverId: string | null, grant: McpAccessGrant, body: unknown): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.find(sessionId, grant.principal, serverId, SessionTransport);
      if (!session) {
        // Another replica may hold it: it answers, whichever replica the load balancer picked.
        const owner = req.headers[FORWARDED_HEADER] === undefined ? await this.owners.ownerOf(sessionId) : undefined;
        if (owner) return this.owners.forward(owner, req, res, body);
        return sendRefusal(res, refusal(404, 'Session not found', undefined, -32001));
      }
      session.federated.updateGrant(grant);
      if (req.method === 'POST') {
        const hot = this.hotPath.accept(req.headers, body);
        const stream = hot && session.transport.openHotStream(hot.id, protocolVersionOf(req), res);
        if (hot && stream) return this.answerHotInSession(hot, stream, session.federated);
      } else if (req.method === 'GET' && session.transport.resumeHotStream(req, res)) {
        return;
      }
      return session.transport.handleRequest(req, res, body);
    }
    const initializing = req.method === 'POST' && (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));
    if (!initializing) return sendRefusal(res, refusal(400, 'Bad Request: Mcp-Session-Id header is required'));

    const federated = await this.federation.open({ serverId, grant, ownUpstreamSessions: true });
    const transport: SessionTransport = new SessionTransport(new BoundedEventStore(), {
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => this.sessions.add({ id, serverId, federated, transport, lastUsed: Date.now(), expires: true }),
    });
    transport.onclose = () => void (transport.sessionId ? this.sessions.end(transport.sessionId) : federated.close());
    try {
      await federated.server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize the SDK transport refused (406, 415, a malformed message) opened no session:
      // nothing would ever end it, and the pool's catalogue listener would keep it for good.
      if (transport.sessionId === undefined) await federated.close();
    }
  }

  /**
   * A tools/call, tools/list or ping on a session, answered on its own SSE stream as the session's
   * SDK server and transport would answer it. A client that goes away does not cancel the call
   * (it may resume the stream); its notifications/cancelled or the session's end does.
   */
  private async answerHotInSession(request: HotRequest, stream: HotStream, federated: FederatedSession): Promise<void> {
    const answer = await this.hotPath.answerInSession(request, federated, stream.signal);
    if (!stream.signal.aborted) stream.answer(answer as JSONRPCMessage);
  }
}

/** The id of a single JSON-RPC request. */
function requestIdOf(body: unknown): RequestId | undefined {
  const message = body as { id?: unknown; method?: unknown } | null;
  if (typeof message?.method !== 'string') return undefined;
  return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
}

/** The request a `notifications/cancelled` names. */
function cancelledRequest(body: unknown): RequestId | undefined {
  const message = body as { method?: unknown; params?: { requestId?: unknown } } | null;
  if (message?.method !== 'notifications/cancelled') return undefined;
  const id = message.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** A request (or batch) with a progress token: its answer goes on an SSE stream with the progress. */
function asksProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined);
}

/** The requests during which an upstream may log (the calls it does work for). */
const CALL_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

function mayLog(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => CALL_METHODS.has((m as { method?: unknown } | null)?.method as string));
}

function protocolVersionOf(req: IncomingMessage): string | undefined {
  const version = req.headers['mcp-protocol-version'];
  return typeof version === 'string' ? version : undefined;
}

/** `/mcp` and `/servers/{id}/mcp` as Express matched them: any letter case, a trailing slash allowed (DirectRoutes drops it). */
const UNION_PATH = /^\/mcp$/i;
const SERVER_PATH = /^\/servers\/([^/]+)\/mcp$/i;

function isUnionPath(path: string): boolean {
  return UNION_PATH.test(path);
}

/** The `{id}` of `/servers/{id}/mcp`, decoded as Express decoded it; undefined for any other path. */
function serverIdIn(path: string): string | undefined {
  const id = SERVER_PATH.exec(path)?.[1];
  if (id === undefined) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return undefined;
  }
}
