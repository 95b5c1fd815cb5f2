// Stateful sessions on two gateway processes (the built app, twice) sharing Redis and PostgreSQL,
// as the manifests run two replicas behind a load balancer that knows nothing of Mcp-Session-Id:
// the official SDK client's requests are dealt to the two in turn, and every one of them reaches
// the process that holds the session. The built control plane decides access, with a real
// dev-idp token.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { createTestDatabase, freePort, startBuiltService, startTestControlPlane, testIssuer, type BuiltService, type TestControlPlane, type TestDatabase } from '@arbor/testing';

/** A stateless upstream with one tool, `echo`. */
async function startUpstream(): Promise<{ url: string; server: HttpServer }> {
  const server = createServer((req, res) => {
    const mcp = new McpServer({ name: 'echo-upstream', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Says it back', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('stateful sessions on two gateway processes sharing Redis', () => {
  let upstream: { url: string; server: HttpServer };
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  const replicas: BuiltService[] = [];

  beforeAll(async () => {
    const redisUrl = process.env['TEST_REDIS_URL'];
    if (!redisUrl) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    upstream = await startUpstream();
    controlPlane = await startTestControlPlane(['alpha']);
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    database = await createTestDatabase();
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-replicas-')), 'mcp-gateway.yaml');
    writeFileSync(
      config,
      `upstreams:
  - name: echo
    url: ${upstream.url}
servers:
  - id: echo
    project: alpha
    name: Echo
    upstreams:
      - upstream: echo
`,
    );
    // One after the other: both migrate the same database.
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      replicas.push(
        await startBuiltService(
          'mcp-gateway',
          'MCPGW_LISTEN_ADDR',
          {
            MCPGW_DATABASE_URL: database.url,
            MCPGW_CONFIG: config,
            MCPGW_LOG: 'off',
            USE_STATEFUL_SESSIONS: 'true',
            MCPGW_REDIS_URL: redisUrl,
            MCPGW_REPLICA_URL: `http://127.0.0.1:${port}`,
            MCPGW_OIDC_ISSUER_URL: testIssuer(),
            MCPGW_CONTROL_PLANE_URL: controlPlane.url,
            MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
            MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
          },
          port,
        ),
      );
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.kill('SIGTERM')));
    await controlPlane?.stop();
    await database?.drop();
    upstream?.server.close();
  });

  it('serves every request of a session on whichever process a round robin deals it to, until DELETE ends it on both', async () => {
    const [first, second] = replicas.map((replica) => new URL(replica.url));
    const served = [0, 0];
    let next = 0;
    let sessionId: string | undefined;
    const statuses: number[] = [];
    // The load balancer: each request to the next process, whatever session it carries.
    const roundRobin = async (input: string | URL | Request, init?: RequestInit) => {
      const target = next++ % 2;
      served[target] = (served[target] ?? 0) + 1;
      const url = new URL(input instanceof Request ? input.url : input);
      url.host = (target === 0 ? first : second)?.host ?? url.host;
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${controlPlane.tokens.alice}`);
      const response = await fetch(url, { ...init, headers });
      sessionId = response.headers.get('mcp-session-id') ?? sessionId;
      statuses.push(response.status);
      return response;
    };
    const client = new Client({ name: 'replicas-spec', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${replicas[0]?.url}/servers/echo/mcp`), { fetch: roundRobin });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    for (const text of ['one', 'two', 'three']) {
      expect(await client.callTool({ name: 'echo', arguments: { text } })).toMatchObject({ content: [{ type: 'text', text }] });
    }
    expect(served[0]).toBeGreaterThanOrEqual(2);
    expect(served[1]).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((status) => status >= 400)).toEqual([]);

    await transport.terminateSession();
    await client.close();
    // Ended for both processes: the session is gone wherever a request for it lands.
    for (const replica of replicas) {
      const answer = await fetch(`${replica.url}/servers/echo/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${controlPlane.tokens.alice}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId ?? '',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
      });
      expect(answer.status).toBe(404);
    }
  });
});
