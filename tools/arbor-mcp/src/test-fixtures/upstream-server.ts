// Test support: an MCP server standing in for the gateway, over Streamable HTTP (stateful or stateless, any path)
// or legacy HTTP+SSE only (GET /legacy + POST /legacy/message; a Streamable HTTP POST to /legacy
// gets 405, as from an older server). It records the Authorization header of every request.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface UpstreamServer {
  /** The MCP URL to give the wrapper. */
  url: string;
  authorizations: (string | undefined)[];
  /** Calls of the `wait` tool that started, and that the client then cancelled. */
  waits: { started: number; cancelled: number };
  close(): Promise<void>;
}

function buildServer(name: string, waits: UpstreamServer['waits']): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: `${name} echoes ${text}` }],
  }));
  server.registerTool(`only-on-${name}`, { description: 'A tool no other server has' }, () => ({ content: [{ type: 'text', text: name }] }));
  server.registerTool('count', { description: 'Counts to n, reporting progress', inputSchema: { n: z.number() } }, async ({ n }, extra) => {
    const progressToken = extra._meta?.progressToken;
    for (let progress = 1; progress <= n; progress++) {
      if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: n } });
    }
    return { content: [{ type: 'text', text: `counted to ${n}` }] };
  });
  server.registerTool('ask-name', { description: 'Asks the user for a name (elicitation)' }, async () => {
    const answer = await server.server.elicitInput({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return { content: [{ type: 'text', text: answer.action === 'accept' ? `hello ${String(answer.content?.['name'])}` : answer.action }] };
  });
  server.registerTool('summarize', { description: 'Asks the client model for a summary (sampling)', inputSchema: { text: z.string() } }, async ({ text }) => {
    const sampled = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 20 });
    return { content: [{ type: 'text', text: sampled.content.type === 'text' ? `summary: ${sampled.content.text}` : 'not text' }] };
  });
  server.registerTool(
    'wait',
    { description: 'Waits until the client cancels the call' },
    (extra) =>
      new Promise<CallToolResult>((resolve) => {
        waits.started += 1;
        extra.signal.addEventListener('abort', () => {
          waits.cancelled += 1;
          resolve({ content: [] });
        });
      }),
  );
  server.registerTool('add-tool', { description: 'Adds a tool, so the server sends tools/list_changed' }, () => {
    server.registerTool(`added-on-${name}`, { description: 'Added while connected' }, () => ({ content: [{ type: 'text', text: `added on ${name}` }] }));
    return { content: [{ type: 'text', text: 'added' }] };
  });
  server.registerResource('greeting', 'fixture://greeting', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: `greetings from ${name}` }],
  }));
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: { who: z.string() } }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}` } }],
  }));
  return server;
}

export interface UpstreamServerOptions {
  name?: string;
  path?: string;
  legacySseOnly?: boolean;
  /** No sessions and plain JSON answers, the gateway's default mode. */
  stateless?: boolean;
  /** Answer 401 unless the Authorization header is exactly this. */
  requireAuthorization?: string;
}

export function startUpstreamServer(options: UpstreamServerOptions = {}): Promise<UpstreamServer> {
  const name = options.name ?? 'upstream';
  const authorizations: (string | undefined)[] = [];
  const waits = { started: 0, cancelled: 0 };
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();

  async function serveStreamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.stateless) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await buildServer(name, waits).connect(transport);
      return transport.handleRequest(req, res);
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? streamable.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        streamable.set(id, transport);
      },
    });
    await buildServer(name, waits).connect(transport);
    await transport.handleRequest(req, res);
  }

  async function serveLegacy(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/legacy' && req.method === 'GET') {
      const transport = new SSEServerTransport('/legacy/message', res);
      sse.set(transport.sessionId, transport);
      await buildServer(name, waits).connect(transport);
      return;
    }
    const transport = sse.get(new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId') ?? '');
    if (path === '/legacy/message' && req.method === 'POST' && transport) return transport.handlePostMessage(req, res);
    res.writeHead(405).end();
  }

  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (options.requireAuthorization !== undefined && req.headers.authorization !== options.requireAuthorization) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const handled = options.legacySseOnly ? serveLegacy(req, res, path) : serveStreamable(req, res);
    handled.catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}${options.legacySseOnly ? '/legacy' : (options.path ?? '/mcp')}`,
        authorizations,
        waits,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
