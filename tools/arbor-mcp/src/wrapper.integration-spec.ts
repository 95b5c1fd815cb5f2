// `arbor-mcp wrapper` from the point of view of a stdio-only MCP client (the official SDK's Client):
// what the HTTP server offers, it sees, and what the server asks of the client comes back to it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ProgressNotificationSchema, ToolListChangedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { connectOverStdio, type StdioSession } from './test-fixtures/cli.ts';
import { startUpstreamServer, type UpstreamServer } from './test-fixtures/upstream-server.ts';

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0].text;
}

/**
 * Every progress notification the client receives. The SDK's own per-request `onprogress` drops
 * progress that reaches it in the same stdout chunk as the result (typescript-sdk issue 2580), so
 * the test listens for the notifications themselves.
 */
function recordProgress(client: Client): Progress[] {
  const seen: Progress[] = [];
  client.setNotificationHandler(ProgressNotificationSchema, ({ params: { progress, total } }) => {
    seen.push({ progress, total });
  });
  return seen;
}

const IGNORE_PROGRESS = { onprogress: () => undefined };

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Starts a call of `tool` (the fixture's wait tool), cancels it once the server runs it, and waits for the server to see that. */
async function cancelWhileRunning(client: Client, upstream: UpstreamServer, tool: string): Promise<void> {
  const before = { ...upstream.waits };
  const controller = new AbortController();
  const call = client.callTool({ name: tool }, undefined, { signal: controller.signal });
  await until(() => upstream.waits.started > before.started);
  controller.abort('no longer needed');
  await expect(call).rejects.toThrow();
  await until(() => upstream.waits.cancelled > before.cancelled);
}

describe('arbor-mcp wrapper over Streamable HTTP', () => {
  let upstream: UpstreamServer;
  let session: StdioSession;

  beforeAll(async () => {
    upstream = await startUpstreamServer();
    const client = new Client({ name: 'stdio-only-client', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => ({
      action: 'accept',
      content: { name: request.params.message === 'What is your name?' ? 'Ada' : 'unexpected question' },
    }));
    client.setRequestHandler(CreateMessageRequestSchema, (request) => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: `short version of "${(request.params.messages[0].content as { text: string }).text}"` },
    }));
    session = await connectOverStdio(['wrapper', '--url', upstream.url, '--auth', 'secret-token'], { client });
  });

  afterAll(async () => {
    await session.close();
    await upstream.close();
  });

  it('answers initialize with the upstream server itself', () => {
    expect(session.client.getServerVersion()).toMatchObject({ name: 'upstream' });
    expect(session.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, logging: {} });
  });

  it('lists and calls the upstream tools', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'count', 'ask-name', 'only-on-upstream']));
    expect(textOf(await session.client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('upstream echoes hi');
  });

  it('reads a resource and gets a prompt', async () => {
    const { contents } = await session.client.readResource({ uri: 'fixture://greeting' });
    expect(contents).toEqual([{ uri: 'fixture://greeting', mimeType: 'text/plain', text: 'greetings from upstream' }]);
    const prompt = await session.client.getPrompt({ name: 'greet', arguments: { who: 'Grace' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Grace' } }]);
  });

  it('passes the progress notifications of a tool call back to the client', async () => {
    const seen = recordProgress(session.client);
    const result = await session.client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, IGNORE_PROGRESS);
    expect(textOf(result)).toBe('counted to 3');
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it('carries an elicitation from the server to the client and the answer back', async () => {
    expect(textOf(await session.client.callTool({ name: 'ask-name' }))).toBe('hello Ada');
  });

  it('carries a sampling request from the server to the client and the answer back', async () => {
    expect(textOf(await session.client.callTool({ name: 'summarize', arguments: { text: 'a long story' } }))).toBe('summary: short version of "a long story"');
  });

  it('passes the client cancelling a call on to the server', async () => {
    await cancelWhileRunning(session.client, upstream, 'wait');
    expect(upstream.waits).toEqual({ started: 1, cancelled: 1 });
  });

  it('sends a bare --auth token as a bearer Authorization header on every request', () => {
    expect(upstream.authorizations.length).toBeGreaterThan(0);
    expect(new Set(upstream.authorizations)).toEqual(new Set(['Bearer secret-token']));
  });

  it('never writes the token on stderr', () => {
    expect(session.stderr()).not.toContain('secret-token');
  });
});

describe('arbor-mcp wrapper over legacy HTTP+SSE', () => {
  let upstream: UpstreamServer;
  let session: StdioSession;

  beforeAll(async () => {
    upstream = await startUpstreamServer({ legacySseOnly: true });
    // The URL does not end in /sse: the server's 405 to Streamable HTTP is what makes the wrapper fall back.
    session = await connectOverStdio(['wrapper'], { env: { MCP_SERVER_URL: upstream.url, MCP_AUTH: 'Bearer sse-token' } });
  });

  afterAll(async () => {
    await session.close();
    await upstream.close();
  });

  it('lists and calls tools of a server that only speaks SSE, with MCP_SERVER_URL and MCP_AUTH', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(textOf(await session.client.callTool({ name: 'echo', arguments: { text: 'old' } }))).toBe('upstream echoes old');
    expect(new Set(upstream.authorizations)).toEqual(new Set(['Bearer sse-token']));
  });
});

describe('arbor-mcp wrapper against a stateless server (the gateway default)', () => {
  it('lists and calls tools when every answer is plain JSON and there is no session', async () => {
    const upstream = await startUpstreamServer({ stateless: true });
    const session = await connectOverStdio(['wrapper', '--url', upstream.url]);
    try {
      expect((await session.client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
      expect(textOf(await session.client.callTool({ name: 'echo', arguments: { text: 'plain' } }))).toBe('upstream echoes plain');
    } finally {
      await session.close();
      await upstream.close();
    }
  });
});

describe('arbor-mcp wrapper with a token the server refuses', () => {
  it('fails initialize with an error that points at the credentials, and does not print the token', async () => {
    const upstream = await startUpstreamServer({ requireAuthorization: 'Bearer right-token' });
    const stderr: string[] = [];
    try {
      await expect(connectOverStdio(['wrapper', '--url', upstream.url, '--auth', 'wrong-token'], { onStderr: (text) => stderr.push(text) })).rejects.toThrow(
        /HTTP 401, the credentials were refused \(see --auth or MCP_AUTH\)/,
      );
      expect(stderr.join('')).not.toContain('wrong-token');
    } finally {
      await upstream.close();
    }
  });
});

describe('arbor-mcp wrapper with several URLs', () => {
  let alpha: UpstreamServer;
  let beta: UpstreamServer;
  let session: StdioSession;

  beforeAll(async () => {
    alpha = await startUpstreamServer({ name: 'alpha', path: '/servers/alpha/mcp' });
    beta = await startUpstreamServer({ name: 'beta', path: '/servers/beta/mcp' });
    const client = new Client({ name: 'stdio-only-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
    session = await connectOverStdio(['wrapper', '--url', alpha.url, '--url', beta.url], { client });
  });

  afterAll(async () => {
    await session.close();
    await alpha.close();
    await beta.close();
  });

  it('keeps names that only one server has and prefixes the ones both have with the server id', async () => {
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['only-on-alpha', 'only-on-beta', 'alpha__echo', 'beta__echo']));
    expect(names).not.toContain('echo');
    expect(textOf(await session.client.callTool({ name: 'beta__echo', arguments: { text: 'hi' } }))).toBe('beta echoes hi');
    expect(textOf(await session.client.callTool({ name: 'only-on-alpha' }))).toBe('alpha');
  });

  it('routes prompts and resources that both servers have to the one named by the prefix', async () => {
    const prompt = await session.client.getPrompt({ name: 'beta__greet', arguments: { who: 'Linus' } });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Say hello to Linus' });
    const { resources } = await session.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['arbor-mcp://alpha/fixture://greeting', 'arbor-mcp://beta/fixture://greeting']);
    const { contents } = await session.client.readResource({ uri: 'arbor-mcp://beta/fixture://greeting' });
    expect(contents).toEqual([{ uri: 'arbor-mcp://beta/fixture://greeting', mimeType: 'text/plain', text: 'greetings from beta' }]);
  });

  it('carries elicitations from both servers to the client and the answers back', async () => {
    const answers = await Promise.all(['alpha__ask-name', 'beta__ask-name'].map((name) => session.client.callTool({ name })));
    expect(answers.map(textOf)).toEqual(['hello Ada', 'hello Ada']);
  });

  it('passes the client cancelling a call on to the server running it', async () => {
    await cancelWhileRunning(session.client, beta, 'beta__wait');
    expect(beta.waits).toEqual({ started: 1, cancelled: 1 });
    expect(alpha.waits.started).toBe(0);
  });

  it('passes on tools/list_changed and can call the new tool at once', async () => {
    let changed = 0;
    session.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    await session.client.listTools();
    await session.client.callTool({ name: 'beta__add-tool' });
    await until(() => changed > 0);
    expect(textOf(await session.client.callTool({ name: 'added-on-beta' }))).toBe('added on beta');
  });

  it('passes progress from whichever server runs the tool', async () => {
    const seen = recordProgress(session.client);
    await session.client.callTool({ name: 'alpha__count', arguments: { n: 2 } }, undefined, IGNORE_PROGRESS);
    expect(seen).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
  });
});
