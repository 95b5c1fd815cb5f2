import { excerpt, UpgradeRoutes } from '@arbor/platform';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { WebSocket, WebSocketServer } from 'ws';
import { Federation } from '../federation/federated-session';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';
import { DownstreamSessions } from './downstream-sessions';
import { McpEdge, refusal, sendRefusalOnSocket } from './mcp-edge';
import { isHandshakeVersion, HANDSHAKE_PROTOCOL_VERSIONS, negotiateInitialize } from '../protocol/protocol-versions';

const WS_PATH = /(?:^|\/)(?:servers\/([^/]+)\/)?ws$/;

/** JSON-RPC messages as WebSocket text frames (the SDK's WebSocket client speaks the `mcp` subprotocol). */
export class WebSocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly sessionId = randomUUID();

  constructor(private readonly socket: WebSocket) {}

  async start(): Promise<void> {
    this.socket.on('message', (data, isBinary) => this.receive(data.toString(), isBinary));
    this.socket.on('close', () => this.onclose?.());
    this.socket.on('error', (error) => this.onerror?.(error));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  async close(): Promise<void> {
    this.socket.close();
  }

  private receive(text: string, isBinary: boolean): void {
    let parsed: unknown;
    try {
      if (isBinary) throw new Error('binary frame');
      parsed = negotiateInitialize(JSON.parse(text));
    } catch {
      void this.send({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError, message: 'Parse error: send JSON-RPC as text frames' } } as unknown as JSONRPCMessage);
      return;
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const message = JSONRPCMessageSchema.safeParse(item);
      if (message.success) this.onmessage?.(message.data);
      else this.onerror?.(new Error('Invalid JSON-RPC message'));
    }
  }
}

/**
 * The WebSocket relay at `/ws` and `/servers/{id}/ws` (MCPGW_WS_RELAY_ENABLED): not a standard MCP
 * transport, offered for clients that have only WebSocket. The upgrade passes the same checks as
 * HTTP requests; each connection is a session with upstream sessions of its own.
 */
@Injectable()
export class WsRelay implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WsRelay');
  private readonly wss: WebSocketServer;

  constructor(
    private readonly upgrades: UpgradeRoutes,
    private readonly edge: McpEdge,
    private readonly federation: Federation,
    private readonly sessions: DownstreamSessions,
    @Inject(MCP_RUNTIME_OPTIONS) options: ResolvedRuntimeOptions,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxBodyBytes,
      handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
    });
  }

  onModuleInit(): void {
    this.upgrades.add({ route: '/ws', paths: ['/ws', '/servers/{id}/ws'], matches: (path) => WS_PATH.test(path), handle: (req, socket, head) => this.upgrade(req, socket, head) });
  }

  async onModuleDestroy(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const match = WS_PATH.exec(new URL(req.url ?? '/', 'http://gateway').pathname);
    if (!match) return;
    const serverId = match[1] ? decodedSegment(match[1]) : null;
    // A segment that is no percent-encoded UTF-8 names no server.
    if (serverId === undefined) return sendRefusalOnSocket(socket, refusal(404, `Server ${excerpt(match[1] as string)} not found`));
    try {
      const origin = this.edge.checkOrigin(req);
      if (origin) return sendRefusalOnSocket(socket, origin);
      const access = await this.edge.authorize(req, serverId);
      if ('refusal' in access) return sendRefusalOnSocket(socket, access.refusal);
      const version = req.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !isHandshakeVersion(version)) {
        return sendRefusalOnSocket(socket, refusal(400, `Bad Request: Unsupported protocol version: ${excerpt(version)}`, { supported: HANDSHAKE_PROTOCOL_VERSIONS }));
      }
      const federated = await this.federation.open({ serverId, grant: access.grant, ownUpstreamSessions: true });
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const transport = new WebSocketServerTransport(ws);
        transport.onclose = () => void this.sessions.end(transport.sessionId);
        this.sessions.add({ id: transport.sessionId, serverId, federated, transport, lastUsed: Date.now(), expires: false });
        federated.server.connect(transport).catch((error: unknown) => {
          this.logger.error(`WebSocket session failed: ${error instanceof Error ? error.message : String(error)}`);
          ws.close();
        });
      });
    } catch (error) {
      this.logger.error(`WebSocket upgrade failed: ${error instanceof Error ? error.message : String(error)}`);
      sendRefusalOnSocket(socket, refusal(500, 'Internal error', undefined, ErrorCode.InternalError));
    }
  }
}

/** A path segment decoded, or undefined when it is not valid percent-encoded UTF-8. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
