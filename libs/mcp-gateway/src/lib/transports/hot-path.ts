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
import { credentialCallerOf, type McpAccessGrant } from '../access/mcp-access';
import type { Catalogue } from '../catalogue/catalogue';
import { Catalogues } from '../catalogue/catalogues';
import type { FederatedSession } from '../federation/federated-session';
import { UpstreamNotification, UpstreamPool } from '../upstreams/upstream-pool';
import type { SessionForwardOptions } from '../upstreams/upstream-sessions';

/** What the hot path answers: the same JSON-RPC message an SDK Server would send. */
export type HotAnswer = { result: unknown; jsonrpc: '2.0'; id: RequestId } | { jsonrpc: '2.0'; id: RequestId; error: { code: number; message: string; data?: unknown } };

export type HotRequest =
  | { kind: 'ping'; id: RequestId }
  | { kind: 'list'; id: RequestId; cursor: string | undefined }
  | { kind: 'call'; id: RequestId; params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } };

const HOT_METHODS = new Set(['tools/call', 'tools/list', 'ping']);

/** Where a hot request is answered from: the catalogue, whether its server has tools, the upstream calls. */
export interface HotScope {
  catalogue(): Promise<Catalogue>;
  offersTools(catalogue: Catalogue): boolean;
  forward(upstream: string, request: ClientRequest, options: SessionForwardOptions): Promise<Result>;
  /** Stateless: where the call's log messages go (a session relays them on its own). */
  onlog?: (notification: UpstreamNotification) => void;
}

/**
 * The common requests — `tools/call`, `tools/list`, `ping`, one per POST — answered without an
 * SDK Server (stateless: one per request; stateful: the session's) and without the SDK transport's
 * web Request/Response bridge: the body is parsed once, the tool found in the caller's catalogue, the
 * call forwarded on the pool's shared upstream session (stateless) or the session's own. The
 * answer is what the SDK path answers, down to the error messages; everything else (batches,
 * initialize, notifications, progress, tasks, an Accept or Content-Type the SDK transport refuses)
 * goes the SDK way.
 */
@Injectable()
export class HotPath {
  constructor(
    private readonly catalogues: Catalogues,
    private readonly pool: UpstreamPool,
  ) {}

  /** The request, when the hot path can answer it exactly as the SDK path would. */
  accept(headers: IncomingHttpHeaders, body: unknown): HotRequest | undefined {
    const method = (body as { method?: unknown } | null)?.method;
    if (typeof method !== 'string' || !HOT_METHODS.has(method)) return undefined;
    if (!acceptsBoth(headers.accept) || !isJson(headers['content-type'])) return undefined;
    const plain = plainRequest(body as Record<string, unknown>, method);
    if (plain) return plain;
    if (!isJSONRPCRequest(body)) return undefined;
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

  /**
   * A stateless request, answered from the caller's catalogue over the pool's shared upstream sessions;
   * the log messages the upstream sends on the call's stream go to `onlog` first.
   */
  answer(request: HotRequest, serverId: string | null, grant: McpAccessGrant, signal: AbortSignal, onlog?: (notification: UpstreamNotification) => void): Promise<HotAnswer> {
    return this.respond(request, signal, {
      catalogue: () => this.catalogues.open({ serverId, grant, sessions: false }),
      offersTools: (catalogue) => catalogue.capabilities.tools !== undefined,
      forward: (upstream, call, options) => this.pool.forward(upstream, call, { ...options, server: serverId, caller: credentialCallerOf(grant) }),
      ...(onlog ? { onlog } : {}),
    });
  }

  /**
   * A request on a stateful session, answered as its SDK server would: from the session's catalogue,
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
    const catalogue = await scope.catalogue();
    // A server without tools has no handler for them: the SDK answers "Method not found".
    if (!scope.offersTools(catalogue)) throw new MethodNotFound();
    if (request.kind === 'list') return catalogue.listTools(request.cursor);
    const onnotification = scope.onlog && catalogue.capabilities.logging ? scope.onlog : undefined;
    const result = await catalogue.callTool(request.params, (upstream, params) =>
      scope.forward(upstream, { method: 'tools/call', params }, { signal, relatedRequestId: request.id, ...(onnotification ? { onnotification } : {}) }),
    );
    if (isPlainTextResult(result)) return result;
    const validated = CallToolResultSchema.safeParse(result);
    if (!validated.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${validated.error.message}`);
    return validated.data;
  }
}

/**
 * The common requests in their plainest form — `ping` and `tools/list` without params or with a
 * cursor only, `tools/call` with a name and arguments only — checked by hand: the schemas accept
 * them as they are, and what they would give back is built here the same, in the same key order.
 * Anything else (other members, `_meta`, `task`) is left to the schemas.
 */
function plainRequest(body: Record<string, unknown>, method: string): HotRequest | undefined {
  if (!hasOnly(body, REQUEST_KEYS) || body['jsonrpc'] !== '2.0' || !isRequestId(body['id'])) return undefined;
  const id = body['id'];
  const params = body['params'];
  if (params === undefined) return method === 'ping' ? { kind: 'ping', id } : method === 'tools/list' ? { kind: 'list', id, cursor: undefined } : undefined;
  if (!isPlainObject(params)) return undefined;
  if (method === 'tools/list') {
    const cursor = params['cursor'];
    return hasOnly(params, LIST_KEYS) && (cursor === undefined || typeof cursor === 'string') ? { kind: 'list', id, cursor } : undefined;
  }
  if (method !== 'tools/call' || !hasOnly(params, CALL_KEYS) || typeof params['name'] !== 'string') return undefined;
  const args = params['arguments'];
  if (args === undefined) return { kind: 'call', id, params: { name: params['name'] } };
  return isPlainObject(args) ? { kind: 'call', id, params: { name: params['name'], arguments: args } } : undefined;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const LIST_KEYS = new Set(['cursor']);
const CALL_KEYS = new Set(['name', 'arguments']);

/** A result that CallToolResultSchema gives back unchanged: text blocks only, members in the schema's order. */
function isPlainTextResult(result: unknown): boolean {
  if (!isPlainObject(result)) return false;
  const keys = Object.keys(result);
  if (keys[0] !== 'content' || keys.length > 2 || (keys.length === 2 && (keys[1] !== 'isError' || typeof result['isError'] !== 'boolean'))) return false;
  const content = result['content'];
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isPlainObject(block)) return false;
    const blockKeys = Object.keys(block);
    if (blockKeys.length !== 2 || blockKeys[0] !== 'type' || blockKeys[1] !== 'text' || block['type'] !== 'text' || typeof block['text'] !== 'string') return false;
  }
  return true;
}

function hasOnly(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** As RequestIdSchema: a string or a safe integer. */
function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || Number.isSafeInteger(id);
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
