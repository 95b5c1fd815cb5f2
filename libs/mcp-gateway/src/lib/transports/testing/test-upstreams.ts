// Small MCP servers started inside the tests, standing for the tool servers a platform team
// registers: one over Streamable HTTP (sessions of its own, so restarts lose them), one over SSE.
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, CreateMessageResultSchema, ElicitResultSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { acceptedContent, createMcpHandler, inputRequired, McpServer as DiscoverFirstMcpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface TestUpstream {
  url: string;
  /** initialize requests received since start (one per upstream session). */
  initializes: number;
  /** Tool calls whose cancellation reached the upstream. */
  cancelled: string[];
  /** Resolves when the `slow` tool has started. */
  slowStarted: Promise<void>;
  /** Most `busy` calls running at once. */
  peak: number;
  /** Adds a tool on every open session (each announces tools/list_changed). */
  addTool(name: string): void;
  stop(): Promise<void>;
  /** Listens again on the same port, with none of the old sessions. */
  start(): Promise<void>;
}

abstract class UpstreamBase implements TestUpstream {
  url = '';
  initializes = 0;
  cancelled: string[] = [];
  peak = 0;
  protected running = 0;
  slowStarted!: Promise<void>;
  protected markSlowStarted!: () => void;
  protected http?: HttpServer;
  private port = 0;

  constructor(protected readonly path: string) {
    this.resetSlow();
  }

  abstract addTool(name: string): void;
  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  protected abstract forgetSessions(): Promise<void>;

  async start(): Promise<void> {
    const http = createServer((req, res) => void this.handle(req, res).catch(() => res.writeHead(500).end()));
    this.http = http;
    await new Promise<void>((resolve) => http.listen(this.port, '127.0.0.1', resolve));
    this.port = (http.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}${this.path}`;
  }

  async stop(): Promise<void> {
    await this.forgetSessions();
    const http = this.http;
    this.http = undefined;
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  protected resetSlow(): void {
    this.slowStarted = new Promise((resolve) => (this.markSlowStarted = resolve));
  }

  protected counted(server: Server): void {
    const previous = server.oninitialized;
    server.oninitialized = () => {
      this.initializes++;
      previous?.();
    };
  }
}

/** `north`: every kind of item, and tools that talk back to the client through the gateway. */
export class StreamableUpstream extends UpstreamBase {
  private readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  private readonly extraTools: string[] = [];

  constructor() {
    super('/mcp');
  }

  /** Upstream sessions open now. */
  get openSessions(): number {
    return this.sessions.size;
  }

  addTool(name: string): void {
    this.extraTools.push(name);
    for (const { server } of this.sessions.values()) this.registerExtra(server, name);
  }

  protected async forgetSessions(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map(({ transport }) => transport.close()));
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (known) return known.transport.handleRequest(req, res);
    if (typeof sessionId === 'string')
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
    const server = this.build();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void this.sessions.set(id, { transport, server }),
    });
    transport.onclose = () => transport.sessionId && this.sessions.delete(transport.sessionId);
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  private build(): McpServer {
    const server = new McpServer({ name: 'north', version: '1.0.0' }, { capabilities: { logging: {} } });
    this.counted(server.server);
    server.registerTool('echo', { description: 'Echoes text (north)', inputSchema: { text: z.string() } }, ({ text }) => ({
      content: [{ type: 'text', text: `north: ${text}` }],
    }));
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    server.registerTool('count', { description: 'Reports progress three times' }, async (extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; token !== undefined && step <= 3; step++) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: 3 } });
      }
      return { content: [{ type: 'text', text: 'counted' }] };
    });
    server.registerTool('log', { description: 'Logs a message' }, async (extra) => {
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'hello from north' } });
      return { content: [{ type: 'text', text: 'logged' }] };
    });
    server.registerTool('meta', { description: 'Shows the _meta it was called with' }, (extra) => ({
      content: [{ type: 'text', text: JSON.stringify(extra._meta?.['trace'] ?? null) }],
      _meta: { from: 'north' },
    }));
    server.registerTool('busy', { description: 'Works for a moment' }, async () => {
      this.peak = Math.max(this.peak, ++this.running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      this.running--;
      return { content: [{ type: 'text', text: 'done' }] };
    });
    server.registerTool('slow', { description: 'Waits until cancelled' }, (extra) => {
      this.markSlowStarted();
      return new Promise((resolve) => {
        extra.signal.addEventListener('abort', () => {
          this.cancelled.push('slow');
          this.resetSlow();
          resolve({ content: [{ type: 'text', text: 'cancelled' }] });
        });
      });
    });
    server.registerTool('ask-model', { description: 'Asks the client for a completion' }, async (extra) => {
      const answer = await extra.sendRequest(
        { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 } },
        CreateMessageResultSchema,
      );
      return { content: [{ type: 'text', text: `model said: ${answer.content.type === 'text' ? answer.content.text : '?'}` }] };
    });
    server.registerTool('ask-user', { description: 'Asks the user for their name' }, async (extra) => {
      const answer = await extra.sendRequest(
        {
          method: 'elicitation/create',
          params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
        },
        ElicitResultSchema,
      );
      return { content: [{ type: 'text', text: `user ${answer.action}: ${String(answer.content?.['name'])}` }] };
    });
    server.registerResource('readme', 'note://north/readme', { description: 'North readme' }, (uri) => ({
      contents: [{ uri: uri.href, text: 'north readme' }],
    }));
    server.registerResource('note', new ResourceTemplate('note://north/{id}', { list: undefined }), { description: 'A note' }, (uri, { id }) => ({
      contents: [{ uri: uri.href, text: `note ${String(id)}` }],
    }));
    server.registerPrompt(
      'greet',
      { description: 'Greets', argsSchema: { name: completable(z.string(), (value) => ['Ada', 'Alan', 'Grace'].filter((n) => n.startsWith(value))) } },
      ({ name }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
      }),
    );
    for (const name of this.extraTools) this.registerExtra(server, name);
    return server;
  }

  private registerExtra(server: McpServer, name: string): void {
    server.registerTool(name, { description: 'Added later' }, () => ({ content: [{ type: 'text', text: name }] }));
  }
}

/** `south`: over SSE, with a tool named like one of north's and a tools list it pages by two. */
export class SseUpstream extends UpstreamBase {
  private readonly sessions = new Map<string, SSEServerTransport>();
  private readonly tools = ['echo', 'weather', 'tide', 'wind', 'rain'];

  constructor() {
    super('/sse');
  }

  addTool(name: string): void {
    this.tools.push(name);
  }

  protected async forgetSessions(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((transport) => transport.close()));
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://south');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      this.sessions.set(transport.sessionId, transport);
      transport.onclose = () => this.sessions.delete(transport.sessionId);
      await this.build().connect(transport);
      return;
    }
    const transport = this.sessions.get(url.searchParams.get('sessionId') ?? '');
    if (req.method === 'POST' && transport) return transport.handlePostMessage(req, res);
    res.writeHead(404).end('Session not found');
  }

  private build(): Server {
    const server = new Server({ name: 'south', version: '1.0.0' }, { capabilities: { tools: {} } });
    this.counted(server);
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const page = this.tools.slice(start, start + 2).map((name) => ({
        name,
        description: `${name} (south)`,
        inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } },
      }));
      return { tools: page, ...(start + 2 < this.tools.length ? { nextCursor: String(start + 2) } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      // A tool it does not list gets a JSON-RPC error of its own wording.
      if (request.params.name === 'refuse') throw new McpError(ErrorCode.InvalidParams, 'Tool refuse not found');
      return { content: [{ type: 'text', text: `south ${request.params.name}: ${String(request.params.arguments?.['text'] ?? '')}` }] };
    });
    return server;
  }
}

/**
 * `east`: an upstream of the 2026-07-28 revision only (the v2 SDK's McpServer behind a strict
 * handler of the revision: an `initialize` is refused), with a tool that needs the user's input.
 */
/** The resource of DiscoverFirstUpstream that changes, subscribable on a `subscriptions/listen` stream. */
export const EAST_STATUS_URI = 'note://east/status';

export class DiscoverFirstUpstream extends UpstreamBase {
  /** Requests received, by method (server/discover probes included). */
  readonly methods: string[] = [];
  private readonly mcp = createMcpHandler(() => this.build(), { legacy: 'reject' });
  private readonly handler = toNodeHandler(this.mcp);
  private readonly tools: string[] = [];
  private status = 'east is calm';

  constructor() {
    super('/mcp');
  }

  addTool(name: string): void {
    this.tools.push(name);
  }

  /** Changes `note://east/status` and tells every listen stream subscribed to it. */
  setStatus(status: string): void {
    this.status = status;
    this.mcp.notify.resourceUpdated(EAST_STATUS_URI);
  }

  protected async forgetSessions(): Promise<void> {
    // Stateless: nothing to forget.
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.headers['mcp-method'];
    this.methods.push(typeof method === 'string' ? method : `${req.method ?? '?'} (no Mcp-Method)`);
    await this.handler(req, res);
  }

  private build(): DiscoverFirstMcpServer {
    const server = new DiscoverFirstMcpServer({ name: 'east', version: '2.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true } } });
    server.registerResource('status', EAST_STATUS_URI, { description: 'How east is (changes with setStatus)', mimeType: 'text/plain' }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: this.status }],
    }));
    server.registerTool('chatty', { description: 'Logs a line (at the level the request names) and answers' }, async (ctx) => {
      await ctx.mcpReq.log('info', 'hello from east');
      return { content: [{ type: 'text', text: 'east chatted' }] };
    });
    server.registerTool('echo', { description: 'Echoes text (east)', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      content: [{ type: 'text', text: `east: ${text}` }],
    }));
    server.registerTool(
      'route',
      { description: 'Echoes its region, which travels in an Mcp-Param-Region header too', inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }) },
      ({ region }) => ({ content: [{ type: 'text', text: `east routes to ${region}` }] }),
    );
    server.registerTool('ask-user', { description: 'Asks the user for their name (input required)' }, (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name');
      if (!answer) {
        return inputRequired({
          inputRequests: {
            name: inputRequired.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }),
          },
        });
      }
      return { content: [{ type: 'text', text: `east user: ${String(answer['name'])}` }] };
    });
    for (const name of this.tools) server.registerTool(name, { description: 'Added later' }, () => ({ content: [{ type: 'text', text: name }] }));
    return server;
  }
}
