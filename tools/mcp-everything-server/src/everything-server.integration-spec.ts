// The everything server as its users meet it: a child process (`node .../main.ts`) that the
// official conformance suite and the official SDK client talk to over Streamable HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startEverythingServer } from './everything-server.ts';

function startProcess(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.join(__dirname, 'main.ts')], {
    env: { PATH: process.env['PATH'] ?? '', MCP_EVERYTHING_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /mcp-everything-server ready at (\S+)/.exec(output);
      if (ready?.[1]) resolve({ child, url: ready[1] });
    });
    child.once('exit', (code) => reject(new Error(`mcp-everything-server exited with ${code}`)));
  });
}

async function connect(url: string, fetchImpl?: typeof fetch): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'everything-server-spec', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : undefined);
  await client.connect(transport);
  return { client, transport };
}

describe('mcp-everything-server', () => {
  let server: { child: ChildProcess; url: string };
  const clients: Client[] = [];

  const session = async (fetchImpl?: typeof fetch) => {
    const connected = await connect(server.url, fetchImpl);
    clients.push(connected.client);
    return connected;
  };

  beforeAll(async () => {
    server = await startProcess();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    server.child.kill('SIGTERM');
  });

  // The suite accepts any text for test_simple_text, even "Tool not found" with isError: pinned here.
  it('answers the content tools without error and with the content types the suite describes', async () => {
    const { client } = await session();
    const call = async (name: string) => {
      const result = await client.callTool({ name });
      return { isError: result.isError ?? false, types: (result.content as { type: string }[]).map((block) => block.type) };
    };
    expect(await client.callTool({ name: 'test_simple_text' })).toEqual({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
    expect(await call('test_image_content')).toEqual({ isError: false, types: ['image'] });
    expect(await call('test_audio_content')).toEqual({ isError: false, types: ['audio'] });
    expect(await call('test_embedded_resource')).toEqual({ isError: false, types: ['resource'] });
    expect(await call('test_multiple_content_types')).toEqual({ isError: false, types: ['text', 'image', 'resource'] });
    expect(await call('test_error_handling')).toEqual({ isError: true, types: ['text'] });
  });

  it('reports progress 0, 50 and 100 of 100 on a tool call with a progress token', async () => {
    const { client } = await session();
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'test_tool_with_progress' }, undefined, { onprogress: (update) => progress.push(update) });
    expect(progress.map(({ progress, total }) => ({ progress, total }))).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
    expect(result.content).toEqual([{ type: 'text', text: 'Tool with progress executed successfully' }]);
  });

  it('sends only the log messages at or above the level the session set', async () => {
    const { client } = await session();
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(`${notification.params.level}: ${String(notification.params.data)}`);
    });
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'test_tool_with_logging' });
    expect(logs).toEqual([]);
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging' });
    expect(logs).toEqual(['info: Tool execution started', 'info: Tool processing data', 'info: Tool execution completed']);
  });

  it('tells a subscribed session that the watched resource changed, and stops after it unsubscribes', async () => {
    const { client } = await session();
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    const before = await client.readResource({ uri: 'test://watched-resource' });

    await client.subscribeResource({ uri: 'test://watched-resource' });
    await client.callTool({ name: 'update_watched_resource' });
    expect(updates).toEqual(['test://watched-resource']);
    const after = await client.readResource({ uri: 'test://watched-resource' });
    expect(after.contents[0]).not.toEqual(before.contents[0]);

    await client.unsubscribeResource({ uri: 'test://watched-resource' });
    await client.callTool({ name: 'update_watched_resource' });
    expect(updates).toEqual(['test://watched-resource']);
  });

  it('closes the stream of test_reconnection mid-call and delivers the answer when the client resumes with Last-Event-ID', async () => {
    const resumptions: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      const lastEventId = new Headers(init?.headers).get('last-event-id');
      if (init?.method === 'GET' && lastEventId) resumptions.push(lastEventId);
      return fetch(input, init);
    };
    const { client } = await session(recordingFetch);
    const result = await client.callTool({ name: 'test_reconnection' });
    expect(result.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('Reconnection test completed successfully') })]);
    expect(resumptions).toHaveLength(1);
  });

  it('ends a session on DELETE, after which its id is unknown', async () => {
    const { client, transport } = await session();
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(404);
    await client.close();
  });

  it('refuses a request whose Origin is another site (DNS rebinding protection)', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example.com' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(403);
  });
});

describe('mcp-everything-server, stateless', () => {
  it('answers tool calls without a session and refuses the GET stream', async () => {
    const everything = await startEverythingServer({ stateless: true });
    try {
      const { client, transport } = await connect(everything.url);
      const result = await client.callTool({ name: 'test_simple_text' });
      expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
      expect(transport.sessionId).toBeUndefined();
      expect((await fetch(everything.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
      await client.close();
    } finally {
      await everything.close();
    }
  });
});

describe('mcp-everything-server, 2026-07-28 era (v2 SDK)', () => {
  let everything: { url: string; close(): Promise<void> };
  let modern: ModernClient;

  beforeAll(async () => {
    everything = await startEverythingServer({ era: '2026-07-28' });
    modern = new ModernClient({ name: 'everything-spec', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} }, sampling: {} } });
    modern.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }));
    modern.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'test-model' }));
    await modern.connect(new ModernTransport(new URL(everything.url)));
  });

  afterAll(async () => {
    await modern.close();
    await everything.close();
  });

  it('serves a v2 client in the 2026-07-28 revision, tools, resources and prompts', async () => {
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(await modern.callTool({ name: 'test_simple_text' })).toMatchObject({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
    expect((await modern.readResource({ uri: 'test://static-text' })).contents).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
    expect((await modern.getPrompt({ name: 'test_simple_prompt' })).messages).toHaveLength(1);
  });

  it('asks for the user’s input and the LLM’s answer as input requests, and answers once they come back', async () => {
    const elicited = await modern.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(elicited.content).toEqual([{ type: 'text', text: 'User response: accept {"username":"ada","email":"ada@example.com"}' }]);
    const sampled = await modern.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hi' } });
    expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: hi there' }]);
  });

  it('reports progress on the request’s own stream', async () => {
    const progress: number[] = [];
    await modern.callTool({ name: 'test_tool_with_progress' }, { onprogress: (update: { progress: number }) => progress.push(update.progress) });
    expect(progress).toEqual([0, 50, 100]);
  });

  it('tells a subscriptions/listen stream subscribed to the watched resource that it changed', async () => {
    let updated!: (uri: string) => void;
    const arrived = new Promise<string>((resolve) => (updated = resolve));
    modern.setNotificationHandler('notifications/resources/updated', (notification) => updated(notification.params.uri));
    const subscription = await modern.listen({ resourceSubscriptions: ['test://watched-resource'] });
    try {
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ['test://watched-resource'] });
      expect(await modern.callTool({ name: 'update_watched_resource' })).toMatchObject({ content: [{ type: 'text', text: 'test://watched-resource is now at version 1' }] });
      expect(await arrived).toBe('test://watched-resource');
      expect((await modern.readResource({ uri: 'test://watched-resource' })).contents).toEqual([
        { uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Version 1 of the watched resource.' },
      ]);
    } finally {
      await subscription.close();
    }
  });

  it('refuses an initialize of the older versions, naming the version it speaks', async () => {
    const response = await fetch(everything.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number; data: { supported: string[] } } }).error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
  });
});
