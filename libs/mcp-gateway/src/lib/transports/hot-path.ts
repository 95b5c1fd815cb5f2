import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  ClientRequest,
  McpError,
  PingRequestSchema,
  RequestId,
  Result,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpAccessGrant } from '../access/mcp-access';
import type { CatalogueView } from '../federation/catalogue-view';
import type { FederatedSession } from '../federation/federated-session';
import { FederationViews } from '../federation/federation-views';
import { page } from '../federation/pagination';
import { UpstreamPool } from '../upstreams/upstream-pool';
import type { SessionForwardOptions } from '../upstreams/upstream-sessions';

/** What the hot path answers: the same JSON-RPC message an SDK Server would send. */
export type HotAnswer =
  | { result: unknown; jsonrpc: '2.0'; id: RequestId }
  | { jsonrpc: '2.0'; id: RequestId; error: { code: number; message: string; data?: unknown } };

export type HotRequest =
  | { kind: 'ping'; id: RequestId }
  | { kind: 'list'; id: RequestId; cursor: string | undefined }
  | { kind: 'call'; id: RequestId; params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } };

const HOT_METHODS = new Set(['tools/call', 'tools/list', 'ping']);

/** Where a hot request is answered from: the view, whether its server has tools, the upstream calls. */
export interface HotScope {
  view(): Promise<CatalogueView>;
  offersTools(view: CatalogueView): boolean;
  forward(upstream: string, request: ClientRequest, options: SessionForwardOptions): Promise<Result>;
}

/**
 * The common requests — `tools/call`, `tools/list`, `ping`, one per POST — answered without an
 * SDK Server (stateless: one per request; stateful: the session's) and without the SDK transport's
 * web Request/Response bridge: the body is parsed once, the tool found in the catalogue view, the
 * call forwarded on the pool's shared upstream session (stateless) or the session's own. The
 * answer is what the SDK path answers, down to the error messages; everything else (batches,
 * initialize, notifications, progress, tasks, an Accept or Content-Type the SDK transport refuses)
 * goes the SDK way.
 */
@Injectable()
export class HotPath {
  constructor(
    private readonly views: FederationViews,
    private readonly pool: UpstreamPool,
  ) {}

  /** The request, when the hot path can answer it exactly as the SDK path would. */
  accept(headers: IncomingHttpHeaders, body: unknown): HotRequest | undefined {
    const method = (body as { method?: unknown } | null)?.method;
    if (typeof method !== 'string' || !HOT_METHODS.has(method)) return undefined;
    if (!acceptsBoth(headers.accept) || !isJson(headers['content-type']) || !isJSONRPCRequest(body)) return undefined;
    const id = body.id;
    if (method === 'ping') return PingRequestSchema.safeParse(body).success ? { kind: 'ping', id } : undefined;
    if (method === 'tools/list') {
      const parsed = ListToolsRequestSchema.safeParse(body);
      return parsed.success ? { kind: 'list', id, cursor: parsed.data.params?.cursor } : undefined;
    }
    const parsed = CallToolRequestSchema.safeParse(body);
    // Progress comes back as notifications, tasks as a task: both need the SDK server.
    if (!parsed.success || parsed.data.params.task || parsed.data.params._meta?.progressToken !== undefined) return undefined;
    return { kind: 'call', id, params: parsed.data.params };
  }

  /** A stateless request, answered from the caller's view over the pool's shared upstream sessions. */
  answer(request: HotRequest, serverId: string | null, grant: McpAccessGrant, signal: AbortSignal): Promise<HotAnswer> {
    return this.respond(request, signal, {
      view: () => this.views.view(serverId, grant.servers, false),
      offersTools: (view) => view.capabilities.tools !== undefined,
      forward: (upstream, call, options) => this.pool.forward(upstream, call, options),
    });
  }

  /**
   * A request on a stateful session, answered as its SDK server would: from the session's view,
   * over its own upstream sessions, with what the upstream sends meanwhile related to it.
   */
  answerInSession(request: HotRequest, session: FederatedSession, signal: AbortSignal): Promise<HotAnswer> {
    return this.respond(request, signal, session);
  }

  private async respond(request: HotRequest, signal: AbortSignal, scope: HotScope): Promise<HotAnswer> {
    try {
      return { result: await this.result(request, signal, scope), jsonrpc: '2.0', id: request.id };
    } catch (error) {
      const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
      return {
        jsonrpc: '2.0',
        id: request.id,
        error: { code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError, message: message ?? 'Internal error', ...(data !== undefined ? { data } : {}) },
      };
    }
  }

  private async result(request: HotRequest, signal: AbortSignal, scope: HotScope): Promise<unknown> {
    if (request.kind === 'ping') return {};
    const view = await scope.view();
    // A server without tools has no handler for them: the SDK answers "Method not found".
    if (!scope.offersTools(view)) throw new MethodNotFound();
    if (request.kind === 'list') {
      const { items, nextCursor } = page(view.tools, request.cursor, this.views.pageSize);
      return { tools: items.map((t) => ({ ...t.item, name: t.name })), ...(nextCursor ? { nextCursor } : {}) };
    }
    const tool = view.tool(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const result = await scope.forward(tool.upstream, { method: 'tools/call', params: { ...request.params, name: tool.original } }, { signal, relatedRequestId: request.id });
    const validated = CallToolResultSchema.safeParse(result);
    if (!validated.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${validated.error.message}`);
    return validated.data;
  }
}

/** As the SDK Protocol words it: no "MCP error" prefix. */
class MethodNotFound extends Error {
  readonly code = ErrorCode.MethodNotFound;
  constructor() {
    super('Method not found');
  }
}

/** The SDK server transport answers 406 unless the client accepts both JSON and SSE. */
function acceptsBoth(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('application/json') && accept.includes('text/event-stream');
}

function isJson(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true;
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}
