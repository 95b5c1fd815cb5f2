// The everything server over Streamable HTTP at /mcp. Stateful by default: `initialize` opens a
// session (Mcp-Session-Id) with SSE answers, the GET stream, resumption from an in-memory event store
// and DELETE. Stateless on request: a fresh McpServer per POST, no GET and no DELETE (and so no
// sampling or elicitation, whose answers would arrive in another request). With era 2026-07-28,
// the revision of that date only (modern-everything.ts).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { foreignHostOrOrigin, isLoopback } from './dns-rebinding.ts';
import { Everything, type EverythingSession } from './everything-session.ts';
import { InMemoryEventStore } from './event-store.ts';
import { modernHandler } from './modern-everything.ts';

export const MCP_PATH = '/mcp';

// How long a client waits before reconnecting to a stream the server closed (SEP-1699 polling).
const RETRY_INTERVAL_MS = 1000;

// A session with no request or stream open for this long is ended, as clients often go away
// without DELETE; checked every SWEEP_MS.
const SESSION_IDLE_MS = 10 * 60_000;
const SWEEP_MS = 60_000;

export interface EverythingServerOptions {
  port?: number;
  host?: string;
  stateless?: boolean;
  /** '2026-07-28': the revision of that date only, on the v2 SDK (modern-everything.ts). */
  era?: 'legacy' | '2026-07-28';
}

export interface EverythingServer {
  // The MCP endpoint, e.g. http://127.0.0.1:3001/mcp.
  url: string;
  close(): Promise<void>;
}

interface OpenSession {
  session: EverythingSession;
  transport: StreamableHTTPServerTransport;
  openRequests: number;
  lastSeen: number;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export function startEverythingServer(options: EverythingServerOptions = {}): Promise<EverythingServer> {
  const host = options.host ?? '127.0.0.1';
  const everything = new Everything();
  const sessions = new Map<string, OpenSession>();

  const track = (open: OpenSession, res: ServerResponse): void => {
    open.openRequests += 1;
    open.lastSeen = Date.now();
    res.once('close', () => {
      open.openRequests -= 1;
      open.lastSeen = Date.now();
    });
  };

  const openSession = async (): Promise<OpenSession> => {
    const session = everything.openSession();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: RETRY_INTERVAL_MS,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, open);
      },
    });
    const open: OpenSession = { session, transport, openRequests: 0, lastSeen: Date.now() };
    // Set before connect: the SDK chains its own close handling after this one.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await session.mcp.connect(transport);
    return open;
  };

  const handleStateful = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const open = sessions.get(sessionId);
      if (!open) return refuse(res, 404, 'Session not found: it ended or never existed; initialize a new one');
      track(open, res);
      return open.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'Bad Request: Mcp-Session-Id header is required');
    // Without a session only `initialize` is answered; the transport refuses anything else, and a
    // session that never initialized is dropped at once.
    const open = await openSession();
    track(open, res);
    await open.transport.handleRequest(req, res);
    if (open.transport.sessionId === undefined) await open.session.mcp.close();
  };

  const handleStateless = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return refuse(res, 405, 'Method Not Allowed: this server is stateless');
    }
    const session = everything.openSession();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.once('close', () => {
      void session.mcp.close();
    });
    await session.mcp.connect(transport);
    await transport.handleRequest(req, res);
  };

  const modern = options.era === '2026-07-28' ? modernHandler() : undefined;
  const serve = modern ? modern.handle : options.stateless ? handleStateless : handleStateful;

  const guardsHost = isLoopback(host);
  const server: Server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) return refuse(res, 404, `Not Found: the MCP endpoint is ${MCP_PATH}`);
    const foreign = guardsHost ? foreignHostOrOrigin(req) : undefined;
    if (foreign) return refuse(res, 403, `Forbidden: ${foreign} (DNS rebinding protection)`);
    serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
      else res.destroy();
    });
  });

  const sweep = setInterval(() => {
    const idleSince = Date.now() - SESSION_IDLE_MS;
    for (const open of sessions.values()) {
      if (open.openRequests === 0 && open.lastSeen < idleSince) void open.session.mcp.close();
    }
  }, SWEEP_MS);
  sweep.unref();

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo;
      const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${urlHost}:${port}${MCP_PATH}`,
        close: async () => {
          clearInterval(sweep);
          await Promise.all([...sessions.values()].map((open) => open.session.mcp.close()));
          await modern?.close();
          await new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          });
        },
      });
    });
  });
}
