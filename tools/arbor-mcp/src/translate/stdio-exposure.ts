// A local stdio MCP server served over HTTP: Streamable HTTP at /mcp, legacy HTTP+SSE at /sse +
// /message. Every client session gets its own child process, so sessions never share the
// server's state; the session ends when the client ends it (DELETE, closed SSE stream) or the child exits.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../upstream/open-upstream.ts';
import { ChildProcessTransport } from './child-process-transport.ts';

export interface StdioExposureOptions {
  command: string;
  host: string;
  port: number;
  streamableHttp: boolean;
  sse: boolean;
  log(line: string): void;
}

export interface StdioExposure {
  /** e.g. http://127.0.0.1:8000 */
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function exposeStdioServer(options: StdioExposureOptions): Promise<StdioExposure> {
  const streamableSessions = new Map<string, StreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();
  const children = new Set<ChildProcessTransport>();

  /** Starts a child for a new session and joins the two; closing either side closes the other. */
  async function startSession(session: Transport & { send: StreamableHTTPServerTransport['send'] }, forget: () => void): Promise<void> {
    const child = new ChildProcessTransport(options.command);
    children.add(child);
    child.onerror = (error) => options.log(`stdio server: ${error.message}`);
    // Progress goes on the stream of the request it reports on, while that request is open.
    const progressRequests = new Map<unknown, RequestId>();
    const unanswered = new Set<RequestId>();
    // A client waiting on a server that died is told so, rather than left with a stream that just ends.
    const exited = (id: RequestId): Promise<void> =>
      session.send({ jsonrpc: '2.0', id, error: { code: -32603, message: `the stdio server exited (${child.ended})` } }).catch(() => undefined);
    session.onmessage = (message) => {
      if (child.ended !== undefined) {
        if (isJSONRPCRequest(message)) exited(message.id).finally(() => session.close().catch(() => undefined));
        return;
      }
      if (isJSONRPCRequest(message)) {
        unanswered.add(message.id);
        const token = message.params?._meta?.progressToken;
        if (token !== undefined) progressRequests.set(token, message.id);
      }
      child.send(message).catch((error: unknown) => options.log(`could not write to the stdio server: ${messageOf(error)}`));
    };
    child.onmessage = (message) => {
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
        if (message.id !== undefined) unanswered.delete(message.id);
        for (const [token, id] of progressRequests) if (id === message.id) progressRequests.delete(token);
      }
      const related = isJSONRPCNotification(message) && message.method === 'notifications/progress' ? progressRequests.get(message.params?.['progressToken']) : undefined;
      session
        .send(message, related === undefined ? undefined : { relatedRequestId: related })
        .catch((error: unknown) => options.log(`could not deliver a message to the client: ${messageOf(error)}`));
    };
    session.onclose = () => {
      forget();
      child.close().catch(() => undefined);
    };
    child.onclose = () => {
      children.delete(child);
      Promise.all([...unanswered].map(exited)).finally(() => session.close().catch(() => undefined));
    };
    await child.start();
    await session.start();
  }

  async function serveStreamableHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = streamableSessions.get(sessionId);
      if (!session) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      return session.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return sendJsonRpcError(res, 400, -32000, 'Bad Request: no valid session ID; a session starts with initialize');
    const session: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        streamableSessions.set(id, session);
      },
    });
    await startSession(session, () => {
      if (session.sessionId) streamableSessions.delete(session.sessionId);
    });
    await session.handleRequest(req, res, body);
  }

  async function serveSse(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/sse' && req.method === 'GET') {
      const session = new SSEServerTransport('/message', res);
      sseSessions.set(session.sessionId, session);
      res.on('close', () => {
        session.close().catch(() => undefined);
      });
      await startSession(session, () => sseSessions.delete(session.sessionId));
      return;
    }
    if (path === '/message' && req.method === 'POST') {
      const sessionId = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId') ?? '';
      const session = sseSessions.get(sessionId);
      if (!session) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      return session.handlePostMessage(req, res);
    }
    sendJsonRpcError(res, 405, -32000, 'Method not allowed');
  }

  const loopbackOnly = LOOPBACK.has(options.host);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    // Bound to loopback, only local pages may call: a foreign Host or Origin is DNS rebinding.
    if (loopbackOnly && (!isLoopbackHost(req.headers.host) || (req.headers.origin !== undefined && !isLoopbackOrigin(req.headers.origin)))) {
      return sendJsonRpcError(res, 403, -32000, 'Forbidden: this server only answers local clients');
    }
    let handled: Promise<void> | undefined;
    if (options.streamableHttp && path === '/mcp') handled = serveStreamableHttp(req, res);
    else if (options.sse && (path === '/sse' || path === '/message')) handled = serveSse(req, res, path);
    if (!handled)
      return sendJsonRpcError(res, 404, -32000, `Not found: ${[options.streamableHttp && '/mcp', options.sse && '/sse'].filter(Boolean).join(' and ')} are served here`);
    handled.catch((error: unknown) => {
      options.log(`${req.method} ${path}: ${messageOf(error)}`);
      if (error instanceof BodyError) sendJsonRpcError(res, error.status, -32700, error.message);
      else if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({
        url: `http://${host}:${port}`,
        close: async () => {
          await Promise.all([...children].map((child) => child.close()));
          server.closeAllConnections();
          await new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
  });
}

class BodyError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413, 'Payload too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BodyError(400, 'Parse error: the body is not JSON');
  }
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && isLoopbackOrigin(`http://${host}`);
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}
