// The official MCP conformance suite (server mode), first against tools/mcp-everything-server
// directly, then through the MCP gateway: the everything server registered as the virtual server
// `everything` of project alpha, the BUILT gateway in stateful mode, the BUILT control plane
// deciding access, real dev-idp tokens. The suite sends no credentials, so a small proxy in front
// of the gateway adds a real person's token — the gateway's rules stay as they are. The gateway
// must pass every check the direct run passes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestDatabase, startBuiltService, startTestControlPlane, testIssuer, type BuiltService, type TestControlPlane, type TestDatabase } from '@arbor/testing';
import baseline from './conformance-baseline.json';
import { runConformance, type ConformanceRun } from './conformance';

function startEverything(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.join(__dirname, '../../mcp-everything-server/src/main.ts')], {
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

/** Forwards everything to `target`, streaming both ways, with `authorization` set to `token`. */
function tokenProxy(target: string, token: () => string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const outgoing = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token()}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => res.destroy());
    res.on('close', () => outgoing.destroy());
    req.pipe(outgoing);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

async function toolNames(url: string): Promise<string[]> {
  const client = new Client({ name: 'gateway-conformance-spec', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('the MCP gateway under the official conformance suite', () => {
  let everything: { child: ChildProcess; url: string };
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: BuiltService;
  let proxy: { url: string; server: Server };

  beforeAll(async () => {
    everything = await startEverything();
    controlPlane = await startTestControlPlane(['alpha']);
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });

    const configDir = mkdtempSync(path.join(tmpdir(), 'mcpgw-conformance-'));
    const config = path.join(configDir, 'mcp-gateway.yaml');
    writeFileSync(config, `upstreams:
  - name: everything
    url: ${everything.url}
servers:
  - id: everything
    project: alpha
    name: Everything
    upstreams:
      - upstream: everything
`);
    database = await createTestDatabase();
    gateway = await startBuiltService('mcp-gateway', 'MCPGW_LISTEN_ADDR', {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_CONFIG: config,
      MCPGW_LOG: 'off',
      USE_STATEFUL_SESSIONS: 'true',
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    });
    proxy = await tokenProxy(gateway.url, () => controlPlane.tokens.alice);
  }, 90_000);

  afterAll(async () => {
    proxy?.server.closeAllConnections();
    proxy?.server.close();
    await gateway?.kill('SIGTERM');
    await controlPlane?.stop();
    everything?.child.kill('SIGTERM');
    await database?.drop();
  });

  let direct: ConformanceRun;

  it('finds the everything server passing every check, apart from the documented baseline', async () => {
    direct = await runConformance(everything.url);
    expect(direct.scenarios.length).toBeGreaterThanOrEqual(32);
    const byKey = new Map(direct.checks.map((check) => [check.key, check]));
    // A baseline entry whose check now behaves otherwise (passes, or fails differently) must go.
    expect(baseline.map((entry) => ({ ...entry, status: byKey.get(`${entry.scenario}/${entry.check}`)?.status }))).toEqual(baseline);
    const baselined = new Set(baseline.map((entry) => `${entry.scenario}/${entry.check}`));
    expect(direct.failed.filter((check) => !baselined.has(check.key)).map(({ key, status, message }) => ({ key, status, message }))).toEqual([]);
  }, 150_000);

  it('passes through the gateway every check the everything server passes on its own', async () => {
    const through = await runConformance(`${proxy.url}/servers/everything/mcp`);
    const passedThrough = new Set(through.passed.map((check) => check.key));
    const lost = direct.passed.filter((check) => !passedThrough.has(check.key)).map((check) => `${check.key}: ${check.message ?? ''}`);
    expect(direct.passed.length).toBeGreaterThan(30);
    expect(lost).toEqual([]);
  }, 150_000);

  it('keeps tool names unchanged on a virtual server with one upstream (the suite would not notice a rename)', async () => {
    expect(await toolNames(`${proxy.url}/servers/everything/mcp`)).toEqual(await toolNames(everything.url));
  });

  it('refuses the suite without the proxy\'s token', async () => {
    const response = await fetch(`${gateway.url}/servers/everything/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(401);
  });
});
