// `arbor-mcp translate`: a local stdio MCP server reached by HTTP clients (Streamable HTTP and
// legacy SSE, one process per session), and a remote URL reached by a stdio client.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, connectOverStdio, REPO_ROOT } from './test-fixtures/cli.ts';
import { startUpstreamServer } from './test-fixtures/upstream-server.ts';

const STDIO_SERVER = `"${process.execPath}" tools/arbor-mcp/src/test-fixtures/counter-stdio-server.ts`;

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

/** Starts `arbor-mcp translate --stdio …` on a free port and resolves with its base URL once it listens. */
async function startTranslate(exposeFlags: string[], stdioServer = STDIO_SERVER): Promise<{ url: string; process: ChildProcessWithoutNullStreams }> {
  const child = spawn(process.execPath, [CLI, 'translate', '--stdio', stdioServer, ...exposeFlags, '--port', '0'], { cwd: REPO_ROOT });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const listening = /at (http:\/\/[^/\s]+)\//.exec(stderr);
      if (listening) resolve(listening[1]);
    });
    child.once('exit', () => reject(new Error(`translate did not start: ${stderr}`)));
  });
  return { url, process: child };
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function connect(transport: StreamableHTTPClientTransport | SSEClientTransport): Promise<Client> {
  const client = new Client({ name: 'http-client', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('arbor-mcp translate --stdio, both transports', () => {
  let translate: { url: string; process: ChildProcessWithoutNullStreams };

  beforeAll(async () => {
    translate = await startTranslate(['--expose-streamable-http', '--expose-sse']);
  });

  afterAll(() => stop(translate.process));

  it('gives two concurrent Streamable HTTP clients a process each, so they do not share state', async () => {
    const [first, second] = await Promise.all([
      connect(new StreamableHTTPClientTransport(new URL(`${translate.url}/mcp`))),
      connect(new StreamableHTTPClientTransport(new URL(`${translate.url}/mcp`))),
    ]);
    const [firstPid, secondPid] = await Promise.all([first.callTool({ name: 'pid' }), second.callTool({ name: 'pid' })]);
    expect(textOf(firstPid)).not.toBe(textOf(secondPid));
    expect(textOf(await first.callTool({ name: 'increment' }))).toBe('1');
    expect(textOf(await first.callTool({ name: 'increment' }))).toBe('2');
    expect(textOf(await second.callTool({ name: 'increment' }))).toBe('1');
    await Promise.all([first.close(), second.close()]);
  });

  it('passes progress notifications to the Streamable HTTP client', async () => {
    const client = await connect(new StreamableHTTPClientTransport(new URL(`${translate.url}/mcp`)));
    const seen: number[] = [];
    client.setNotificationHandler(ProgressNotificationSchema, ({ params }) => {
      seen.push(params.progress);
    });
    const result = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, { onprogress: () => undefined });
    expect(textOf(result)).toBe('counted to 3');
    expect(seen).toEqual([1, 2, 3]);
    await client.close();
  });

  it('ends the stdio process when the client ends its session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${translate.url}/mcp`));
    const client = await connect(transport);
    const pid = Number(textOf(await client.callTool({ name: 'pid' })));
    expect(isRunning(pid)).toBe(true);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    while (isRunning(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    const afterwards = await fetch(`${translate.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(afterwards.status).toBe(404);
    await client.close();
  });

  it('serves the same server over legacy SSE, again with a process per client', async () => {
    const [first, second] = await Promise.all([connect(new SSEClientTransport(new URL(`${translate.url}/sse`))), connect(new SSEClientTransport(new URL(`${translate.url}/sse`)))]);
    expect((await first.listTools()).tools.map((tool) => tool.name)).toEqual(['increment', 'pid', 'count']);
    expect(textOf(await first.callTool({ name: 'increment' }))).toBe('1');
    expect(textOf(await second.callTool({ name: 'increment' }))).toBe('1');
    expect(textOf(await first.callTool({ name: 'pid' }))).not.toBe(textOf(await second.callTool({ name: 'pid' })));
    await Promise.all([first.close(), second.close()]);
  });

  it('refuses a request from a foreign web page (DNS rebinding)', async () => {
    const response = await fetch(`${translate.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(403);
  });
});

describe('arbor-mcp translate --stdio with only one transport', () => {
  it('serves only Streamable HTTP when asked to', async () => {
    const translate = await startTranslate(['--expose-streamable-http']);
    try {
      const client = await connect(new StreamableHTTPClientTransport(new URL(`${translate.url}/mcp`)));
      expect(textOf(await client.callTool({ name: 'increment' }))).toBe('1');
      await client.close();
      expect((await fetch(`${translate.url}/sse`)).status).toBe(404);
    } finally {
      await stop(translate.process);
    }
  });
});

describe('arbor-mcp translate --stdio with a server that dies', () => {
  it('answers the waiting request with an error that says the stdio server exited', async () => {
    const translate = await startTranslate([], `"${process.execPath}" tools/arbor-mcp/src/test-fixtures/dies-after-initialize.ts`);
    try {
      const client = await connect(new StreamableHTTPClientTransport(new URL(`${translate.url}/mcp`)));
      await expect(client.listTools()).rejects.toThrow('the stdio server exited (exit code 3)');
      await client.close().catch(() => undefined);
    } finally {
      await stop(translate.process);
    }
  });
});

describe('arbor-mcp translate --stdio with a server that cannot start', () => {
  /** The CLI run to its end: its exit code and what it said on stderr. */
  async function runTranslate(stdioServer: string): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [CLI, 'translate', '--stdio', stdioServer, '--port', '0'], { cwd: REPO_ROOT });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, stderr };
  }

  const ours = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('arbor-mcp:'));

  it('says in one line that a server whose file is missing exited, and never that it serves', async () => {
    const { code, stderr } = await runTranslate('node tools/arbor-mcp/src/test-fixtures/no-such-server.js');
    expect(code).toBe(1);
    expect(ours(stderr)).toEqual([
      'arbor-mcp: could not start: "node tools/arbor-mcp/src/test-fixtures/no-such-server.js" exited (exit code 1) before answering an MCP initialize',
    ]);
  });

  it('says in one line that a command does not exist', async () => {
    const { code, stderr } = await runTranslate('no-such-mcp-server --stdio');
    expect(code).toBe(1);
    expect(ours(stderr)).toEqual(['arbor-mcp: could not start: "no-such-mcp-server --stdio" is not a command the shell finds (exit code 127)']);
  });
});

describe('arbor-mcp translate --url', () => {
  it('bridges a remote MCP server to a stdio client', async () => {
    const upstream = await startUpstreamServer();
    const session = await connectOverStdio(['translate', '--url', upstream.url, '--auth', 'Bearer remote-token']);
    try {
      expect(textOf(await session.client.callTool({ name: 'echo', arguments: { text: 'far' } }))).toBe('upstream echoes far');
      expect(new Set(upstream.authorizations)).toEqual(new Set(['Bearer remote-token']));
    } finally {
      await session.close();
      await upstream.close();
    }
  });
});
