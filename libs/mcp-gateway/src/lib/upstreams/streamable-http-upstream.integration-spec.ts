// The gateway's Streamable HTTP client toward upstreams, against an SDK server in this process:
// JSON and SSE answers, the GET stream, a dropped stream resumed, a lost session, DELETE.
import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { EventStore, StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessage, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHttpUpstreamTransport } from './streamable-http-upstream';
import { isConnectionLoss } from './upstream-link';

class MemoryEventStore implements EventStore {
  private readonly events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${this.events.length}`;
    this.events.push({ id, streamId, message });
    return id;
  }
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }
  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    const streamId = this.events[at]!.streamId;
    for (const event of this.events.slice(at + 1)) if (event.streamId === streamId && Object.keys(event.message).length > 0) await send(event.id, event.message);
    return streamId;
  }
}

/** An SDK server with sessions: JSON answers or SSE with resumable streams. */
class Upstream {
  readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  readonly seen: { method?: string; headers: IncomingHttpHeaders }[] = [];
  url = '';
  private http?: HttpServer;

  constructor(private readonly json: boolean) {}

  async start(): Promise<void> {
    this.http = createServer((req, res) => {
      // Moved endpoints: to the same origin (307, 301), and to another origin (the same server named otherwise).
      const port = (this.http!.address() as AddressInfo).port;
      const moved = { '/moved': [307, '/mcp'], '/moved-for-good': [301, '/mcp'], '/moved-away': [307, `http://localhost:${port}/mcp`] }[req.url ?? ''];
      if (moved) return void res.writeHead(moved[0] as number, { location: moved[1] as string }).end();
      this.seen.push({ method: req.method, headers: req.headers });
      const id = req.headers['mcp-session-id'];
      const known = typeof id === 'string' ? this.sessions.get(id) : undefined;
      if (known) return void known.transport.handleRequest(req, res);
      if (typeof id === 'string') return void res.writeHead(404).end();
      const server = new McpServer({ name: 'up', version: '1' });
      server.registerTool('hello', {}, () => ({ content: [{ type: 'text', text: 'hello' }] }));
      server.registerTool('dropping', {}, async (extra) => {
        extra.closeSSEStream?.();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { content: [{ type: 'text', text: 'after the drop' }] };
      });
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: this.json,
        ...(this.json ? {} : { eventStore: new MemoryEventStore(), retryInterval: 10 }),
        onsessioninitialized: (sid) => void this.sessions.set(sid, { transport, server }),
        onsessionclosed: (sid) => void this.sessions.delete(sid),
      });
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions.values()].map(({ transport }) => transport.close()));
    this.http?.closeAllConnections();
    await new Promise((resolve) => this.http?.close(resolve));
  }
}

describe('StreamableHttpUpstreamTransport', () => {
  const upstreams = { json: new Upstream(true), sse: new Upstream(false) };
  const clients: Client[] = [];

  async function connect(upstream: Upstream): Promise<{ client: Client; transport: StreamableHttpUpstreamTransport }> {
    const transport = new StreamableHttpUpstreamTransport(new URL(upstream.url), { Authorization: 'Bearer upstream-secret' });
    const client = new Client({ name: 'gateway', version: '1' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  beforeAll(() => Promise.all(Object.values(upstreams).map((u) => u.start())));
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(Object.values(upstreams).map((u) => u.stop()));
  });

  it.each(['json', 'sse'] as const)('calls tools on an upstream answering in %s, sending the registry headers every time', async (kind) => {
    const upstream = upstreams[kind];
    const { client, transport } = await connect(upstream);
    expect(await client.callTool({ name: 'hello' })).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    expect(await transport.call('tools/call', { name: 'hello' }, { timeoutMs: 5000 })).toMatchObject({ result: { content: [{ text: 'hello' }] } });
    const headers = upstream.seen.map((s) => s.headers);
    expect(headers.every((h) => h.authorization === 'Bearer upstream-secret')).toBe(true);
    expect(headers.at(-1)).toMatchObject({ 'mcp-session-id': transport.sessionId, 'mcp-protocol-version': '2025-11-25' });
  });

  it('receives what the upstream sends on its GET stream', async () => {
    const { client, transport } = await connect(upstreams.sse);
    let changed = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed = true));
    await waitFor(() => upstreams.sse.seen.some((s) => s.method === 'GET' && s.headers['mcp-session-id'] === transport.sessionId));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await upstreams.sse.sessions.get(transport.sessionId!)!.server.sendToolListChanged();
    await waitFor(() => changed);
  });

  it('resumes a POST stream the upstream closed before answering', async () => {
    const { client } = await connect(upstreams.sse);
    expect(await client.callTool({ name: 'dropping' })).toEqual({ content: [{ type: 'text', text: 'after the drop' }] });
  });

  it('reports a session the upstream forgot as a lost connection, and ends its session with DELETE', async () => {
    const { client, transport } = await connect(upstreams.json);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    expect(upstreams.json.seen.at(-1)).toMatchObject({ method: 'DELETE' });
    expect(upstreams.json.sessions.has(sessionId)).toBe(false);
    expect(transport.sessionId).toBeUndefined();

    const other = await connect(upstreams.json);
    upstreams.json.sessions.delete(other.transport.sessionId!);
    const failure = await other.client.callTool({ name: 'hello' }).catch((error: unknown) => error);
    expect(isConnectionLoss(failure)).toBe(true);
    await client.close();
  });

  it('follows a 307 to the same origin with the same method and body, and no other redirect', async () => {
    const at = (path: string) => new StreamableHttpUpstreamTransport(new URL(path, upstreams.json.url), { Authorization: 'Bearer upstream-secret' });
    const client = new Client({ name: 'gateway', version: '1' });
    await client.connect(at('/moved'));
    clients.push(client);
    expect(await client.callTool({ name: 'hello' })).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    expect(upstreams.json.seen.at(-1)).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer upstream-secret' } });

    for (const path of ['/moved-for-good', '/moved-away']) {
      const refused = new Client({ name: 'gateway', version: '1' });
      await expect(refused.connect(at(path))).rejects.toThrow(/HTTP 30[17]|Error POSTing to endpoint/);
      await refused.close();
    }
  });

  it('times a raw call out and tells the upstream', async () => {
    const { transport } = await connect(upstreams.json);
    await expect(transport.call('tools/call', { name: 'dropping' }, { timeoutMs: 1 })).rejects.toThrow(/Request timed out/);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('never happened');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
