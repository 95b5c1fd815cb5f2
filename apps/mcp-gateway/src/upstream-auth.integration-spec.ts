// Upstreams that see the person: an internal tool server that accepts only identity-provider
// tokens issued for itself, reached through the gateway's token exchange (RFC 8693) at the dev
// identity provider, by two people through the same virtual server; the official SDK on both
// sides, the control plane (built) deciding who may use the server.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, freePort, type SeenRequest, startTestControlPlane, TestControlPlane, TestDatabase, testIssuer, tokensIssuedFor } from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

const AUDIENCE = 'arbor-tool-server';

/**
 * An internal MCP server that trusts only the suite's identity provider and only tokens whose
 * audience is itself (jose against the JWKS): `whoami` answers the person the token names. Every
 * request it is sent is recorded, refused or not.
 */
async function startToolServer(): Promise<{ url: string; server: HttpServer; seen: SeenRequest[] }> {
  const tokens = tokensIssuedFor(AUDIENCE);
  const server = createServer((req, res) => {
    void (async () => {
      const claims = await tokens.verify(req.headers.authorization);
      if (!claims) {
        res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        return;
      }
      const mcp = new McpServer({ name: 'internal-tools', version: '1.0.0' });
      mcp.registerTool('whoami', { description: 'Who is calling', inputSchema: {} }, async () => ({
        content: [{ type: 'text', text: `${String(claims['preferred_username'])} (${claims.sub})` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server, seen: tokens.seen };
}

async function connected(url: string, credential: string): Promise<Client> {
  const client = new Client({ name: 'upstream-auth-spec', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
  return client;
}

async function whoami(url: string, credential: string): Promise<{ text: string; isError: boolean }> {
  const client = await connected(url, credential);
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    return { text: (result.content as { text: string }[])[0]?.text ?? '', isError: result.isError === true };
  } finally {
    await client.close();
  }
}

describe.each([
  ['stateless', 'false'],
  ['stateful', 'true'],
])('upstreams with token exchange (%s sessions)', (_mode, stateful) => {
  let toolServer: Awaited<ReturnType<typeof startToolServer>>;
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  let subjects: Record<'alice' | 'bob', string>;

  beforeAll(async () => {
    toolServer = await startToolServer();
    controlPlane = await startTestControlPlane();
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer', 'mcp-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    const subjectOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub as string;
    subjects = { alice: subjectOf(controlPlane.tokens.alice), bob: subjectOf(controlPlane.tokens.bob) };

    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-upstream-auth-')), 'config.yaml');
    writeFileSync(
      config,
      `upstreams:
  - name: internal
    url: "${toolServer.url}"
    auth: { type: token_exchange, audience: ${AUDIENCE} }
servers:
  - { id: tools, project: alpha, name: Tools, upstreams: [{ upstream: internal }] }
`,
    );
    database = await createTestDatabase();
    const port = await freePort();
    gateway = await startService(mcpGatewayService, {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: `127.0.0.1:${port}`,
      MCPGW_PUBLIC_URL: `http://127.0.0.1:${port}`,
      MCPGW_LOG: 'off',
      MCPGW_CONFIG: config,
      USE_STATEFUL_SESSIONS: stateful,
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
      MCPGW_OIDC_CLIENT_ID: 'mcp-gateway',
      MCPGW_OIDC_CLIENT_SECRET: 'dev-mcp-gateway-secret',
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await controlPlane?.stop();
    toolServer?.server.close();
    toolServer?.server.closeAllConnections();
    await database?.drop();
  });

  it('answers whoami with the calling person, for two people through the same virtual server', async () => {
    const url = `${gateway.url}/servers/tools/mcp`;
    expect(await whoami(url, controlPlane.tokens.alice)).toEqual({ text: `alice (${subjects.alice})`, isError: false });
    expect(await whoami(url, controlPlane.tokens.bob)).toEqual({ text: `bob (${subjects.bob})`, isError: false });
    expect(await whoami(url, controlPlane.tokens.alice)).toEqual({ text: `alice (${subjects.alice})`, isError: false });
    // Only tokens the identity provider issued for the tool server reached it, each naming its person.
    expect(toolServer.seen.every((request) => request.status === 200 && request.claims?.aud === AUDIENCE && request.claims.azp === 'mcp-gateway')).toBe(true);
    expect(new Set(toolServer.seen.map((request) => request.claims?.sub))).toEqual(new Set([subjects.alice, subjects.bob]));
  });

  it('lists the tool server’s tools to a person through the virtual server', async () => {
    const client = await connected(`${gateway.url}/servers/tools/mcp`, controlPlane.tokens.bob);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['whoami']);
    } finally {
      await client.close();
    }
  });

  it('answers an MCP API key, which has no person to exchange for, with a tool error, and sends the upstream nothing', async () => {
    const created = await fetch(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${controlPlane.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'alpha', name: 'ci' }),
    });
    const { key } = (await created.json()) as { key: string };
    const before = toolServer.seen.length;
    const answer = await whoami(`${gateway.url}/servers/tools/mcp`, key);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/Upstream "internal" acts for the person calling \(token exchange\), and this caller is no person/);
    expect(toolServer.seen.length).toBe(before);
  });
});
