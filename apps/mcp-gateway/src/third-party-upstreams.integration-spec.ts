// The gateway in front of MCP servers no one here wrote: the official reference server
// (`@modelcontextprotocol/server-everything`, Streamable HTTP) and the official memory server
// (`@modelcontextprotocol/server-memory`, stdio) reached through `arbor-mcp translate`. What a client
// sees through the gateway is what it sees directly, apart from what federation requires (names on
// `/mcp`, access): tools, their answers, and an unknown tool's error in the upstream's own words.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, freePort, startTestControlPlane, TestControlPlane, TestDatabase, testIssuer } from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Starts a child process and resolves once its output (stdout or stderr) matches `ready`. */
function startChild(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'third-party-spec', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}));
  return client;
}

/** What a client sees of a call: its result, or its error's code and message. */
async function outcome(client: Client, name: string, args: Record<string, unknown>): Promise<unknown> {
  return client.callTool({ name, arguments: args }).catch((error: { code?: unknown; message?: unknown }) => ({ code: error.code, message: error.message }));
}

describe('the MCP gateway in front of third-party MCP servers', () => {
  let reference: ChildProcess;
  let memory: ChildProcess;
  let referenceUrl: string;
  let memoryUrl: string;
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  const clients: Client[] = [];

  beforeAll(async () => {
    const port = await freePort();
    reference = (await startChild(['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'streamableHttp'], { PORT: String(port) }, /listening on port/)).child;
    referenceUrl = `http://127.0.0.1:${port}/mcp`;
    const memoryFile = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-memory-')), 'memory.jsonl');
    const translate = await startChild(
      [
        'tools/arbor-mcp/src/main.ts',
        'translate',
        '--stdio',
        `"${process.execPath}" node_modules/@modelcontextprotocol/server-memory/dist/index.js`,
        '--expose-streamable-http',
        '--port',
        '0',
      ],
      { MEMORY_FILE_PATH: memoryFile },
      /at (http:\/\/[^/\s]+)\//,
    );
    memory = translate.child;
    memoryUrl = `${translate.match[1]}/mcp`;

    controlPlane = await startTestControlPlane(['alpha']);
    // alice operates alpha, so she sees every tool as the servers list them (destructive ones
    // included); carol only views it.
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer', 'mcp-gateway.operator'] } });
    await controlPlane.grant('carol', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-third-party-')), 'config.yaml');
    writeFileSync(
      config,
      `upstreams:
  - { name: reference, url: "${referenceUrl}" }
  - { name: memory, url: "${memoryUrl}" }
servers:
  - { id: reference, project: alpha, name: Reference, upstreams: [{ upstream: reference }] }
  - { id: memory, project: alpha, name: Memory, upstreams: [{ upstream: memory }] }
`,
    );
    database = await createTestDatabase();
    gateway = await startService(mcpGatewayService, {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: '127.0.0.1:0',
      MCPGW_LOG: 'off',
      MCPGW_CONFIG: config,
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await gateway?.close();
    await controlPlane?.stop();
    await database?.drop();
    reference?.kill('SIGTERM');
    memory?.kill('SIGTERM');
  });

  async function client(url: string, token?: string): Promise<Client> {
    const connected = await connect(url, token);
    clients.push(connected);
    return connected;
  }

  it('lists the reference server’s tools unchanged on its virtual server and prefixed on /mcp, and answers its calls as it does', async () => {
    const direct = await client(referenceUrl);
    const through = await client(`${gateway.url}/servers/reference/mcp`, controlPlane.tokens.alice);
    const everywhere = await client(`${gateway.url}/mcp`, controlPlane.tokens.alice);
    const names = (await direct.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toContain('echo');
    expect((await through.listTools()).tools.map((tool) => tool.name).sort()).toEqual(names);
    expect(
      (await everywhere.listTools()).tools
        .map((tool) => tool.name)
        .filter((name) => name.startsWith('reference__'))
        .sort(),
    ).toEqual(names.map((name) => `reference__${name}`));
    const echoed = await outcome(direct, 'echo', { message: 'hello' });
    expect(await outcome(through, 'echo', { message: 'hello' })).toEqual(echoed);
    expect(await outcome(everywhere, 'reference__echo', { message: 'hello' })).toEqual(echoed);
  });

  it('answers a call of a tool the reference server does not have in the server’s own words, never nesting one error in another', async () => {
    const direct = await client(referenceUrl);
    const through = await client(`${gateway.url}/servers/reference/mcp`, controlPlane.tokens.alice);
    const everywhere = await client(`${gateway.url}/mcp`, controlPlane.tokens.alice);
    const answer = await outcome(direct, 'no_such_tool', {});
    expect(await outcome(through, 'no_such_tool', {})).toEqual(answer);
    expect(await outcome(everywhere, 'reference__no_such_tool', {})).toEqual(answer);
    expect(JSON.stringify(await outcome(through, 'no_such_tool', {}))).not.toMatch(/MCP error -?\d+: MCP error/);
  });

  it('serves the memory server over stdio through arbor-mcp translate as it answers directly', async () => {
    const direct = await client(memoryUrl);
    const through = await client(`${gateway.url}/servers/memory/mcp`, controlPlane.tokens.alice);
    expect((await through.listTools()).tools.map((tool) => tool.name).sort()).toEqual((await direct.listTools()).tools.map((tool) => tool.name).sort());
    const entity = { name: 'Arbor', entityType: 'project', observations: ['federates MCP servers'] };
    await through.callTool({ name: 'create_entities', arguments: { entities: [entity] } });
    expect(await outcome(through, 'read_graph', {})).toEqual(await outcome(direct, 'read_graph', {}));
    expect(JSON.stringify(await outcome(through, 'read_graph', {}))).toContain('federates MCP servers');
    expect(await outcome(through, 'no_such_tool', {})).toEqual(await outcome(direct, 'no_such_tool', {}));
  });

  it("keeps the memory server's destructive tools (destructiveHint) from a person who only views the project", async () => {
    const listed = (await (await client(memoryUrl)).listTools()).tools;
    const destructive = listed.filter((tool) => tool.annotations?.destructiveHint === true).map((tool) => tool.name);
    expect(destructive).toEqual(expect.arrayContaining(['delete_entities']));
    const viewer = await client(`${gateway.url}/servers/memory/mcp`, controlPlane.tokens.carol);
    expect((await viewer.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      listed
        .map((tool) => tool.name)
        .filter((name) => !destructive.includes(name))
        .sort(),
    );
  });
});
