import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { errorFields, RequestObserver } from '@arbor/observability';
import { inputRefusalBody, requestTargetProblem } from '../input/input-limits.middleware';
import { pathPattern, type RouteEndpoint, type RouteEntry, servesEndpoint } from './route-patterns';

/**
 * A route served straight from Node's HTTP server, below Express and Nest: for the few hot
 * routes whose per-request cost is the product (a gateway's model and tool calls), where
 * Express's router, body parsers and Nest's guard/filter chain cost more than the call itself.
 * The route owns its request whole: body, authentication, answer and errors.
 */
export interface DirectRoute {
  /** The route pattern, as the request log and HTTP metrics label it (`/v1/chat/completions`). */
  route: string;
  /**
   * Every method and path the route serves, for the route table (the fuzz suite attacks each):
   * a request outside them is not the route's, whatever `matches` says.
   */
  endpoints: readonly RouteEndpoint[];
  /** Whether this route serves `method` on `path` (the URL path, no query string). */
  matches(method: string, path: string): boolean;
  /** Answers the request, errors included; a throw ends in a bare 500. */
  handle(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> | void;
}

/**
 * The service's direct routes, looked up for every request before Express sees it. Traced,
 * logged and measured like every other request (RequestObserver); a path or query string that
 * breaks the suite's input rules (NUL, lone surrogates, bad percent-encoding) is refused with
 * 400 before the route sees it. Features add theirs in `onModuleInit`.
 */
@Injectable()
export class DirectRoutes {
  private readonly logger = new Logger('DirectRoutes');
  private readonly routes: (DirectRoute & { patterns: { methods: readonly string[]; pattern: RegExp }[] })[] = [];

  constructor(private readonly observer: RequestObserver) {}

  add(...routes: DirectRoute[]): void {
    for (const route of routes) this.routes.push({ ...route, patterns: route.endpoints.map(({ methods, path }) => ({ methods, pattern: pathPattern(path) })) });
  }

  /** The direct routes' entries of the route table. */
  table(): RouteEntry[] {
    return this.routes.flatMap(({ route, endpoints }) => endpoints.map(({ methods, path }): RouteEntry => ({ router: 'direct', methods: [...methods], path, route })));
  }

  /** Puts the direct routes in front of the framework's request listener on `server`. */
  install(server: Server): void {
    const framework = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const path = pathOf(request.url);
      const route =
        this.routes.length === 0
          ? undefined
          : this.routes.find((candidate) => servesEndpoint(candidate.patterns, request.method ?? '', path) && candidate.matches(request.method ?? '', path));
      if (!route) {
        for (const listener of framework) listener(request, response);
        return;
      }
      this.serve(route, path, request, response);
    });
  }

  private serve(route: DirectRoute, path: string, request: IncomingMessage, response: ServerResponse): void {
    const fail = (error: unknown) => {
      this.logger.error(`${request.method} ${route.route} failed`, { err: errorFields(error) });
      if (response.headersSent) return void response.destroy();
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"internal_error","message":"The server failed to handle the request."}}');
    };
    // The edge's input rules for the request target, which no framework middleware sees here; bodies are the route's to read.
    const problem = requestTargetProblem(request.url);
    const handle: () => Promise<void> | void = problem
      ? () => {
          request.resume();
          response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(inputRefusalBody(problem)));
        }
      : () => route.handle(request, response, path);
    try {
      const pending = this.observer.serve(request, response, route.route, handle);
      if (pending) pending.catch(fail);
    } catch (error) {
      fail(error);
    }
  }
}

/** The path of a request target (`/v1/chat/completions?x=1` → `/v1/chat/completions`), one trailing slash dropped. */
function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** What reading a direct route's request body gave: its bytes, or why it was not read. */
export type RequestBody =
  | { bytes: Buffer }
  /** Over the limit: announced by content-length (nothing is read) or found while reading. */
  | { refused: 'too_large' }
  /** A content-encoding other than identity (gzip…): not decompressed here, so not readable. */
  | { refused: 'unsupported_encoding'; encoding: string };

/**
 * A direct route's request body, the suite's one way of reading it: refused unread when its
 * content-encoding is not identity or its content-length is over `limit`, else read whole, and
 * refused once it outgrows `limit` (the rest is read and dropped, so that the refusal can still
 * be answered on the connection).
 */
export async function readRequestBody(request: IncomingMessage, limit: number): Promise<RequestBody> {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    request.resume();
    return { refused: 'unsupported_encoding', encoding };
  }
  if (Number(request.headers['content-length'] ?? 0) > limit) {
    request.resume();
    return { refused: 'too_large' };
  }
  const bytes = await readBodyWithin(request, limit);
  return bytes === undefined ? { refused: 'too_large' } : { bytes };
}

/**
 * A direct route's request body, read whole; undefined once it outgrows `limit` bytes (the rest
 * is read and dropped, so that a refusal can still be answered on the connection).
 */
function readBodyWithin(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      request.off('data', onData);
      request.resume();
      resolve(undefined);
    };
    request.on('data', onData);
    request.once('error', reject);
    request.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
  });
}
