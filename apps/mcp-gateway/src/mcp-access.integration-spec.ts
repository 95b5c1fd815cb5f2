// Who may use the MCP gateway, as MCP clients and platform teams meet it: the official SDK client
// with a person's dev-idp token or a gateway API key, the control plane (built) deciding through
// @arbor/contract, a small upstream MCP server started here.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, freePort, startTestControlPlane, TestControlPlane, TestDatabase, testIssuer } from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

/** A stateless upstream with one tool, `echo`. */
async function startUpstream(): Promise<{ url: string; server: HttpServer }> {
  const server = createServer((req, res) => {
    const mcp = new McpServer({ name: 'echo-upstream', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Says it back', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'echoed' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

async function json<T>(baseUrl: string, method: string, route: string, token: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** Connects the SDK client with `credential` and lists tools; the HTTP status when it is refused. */
async function toolsWith(url: string, credential: string): Promise<string[] | number> {
  const client = new Client({ name: 'mcp-access-spec', version: '1.0.0' });
  let refused: number | undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${credential}`);
      const response = await fetch(input, { ...init, headers });
      if (response.status >= 400) refused = response.status;
      return response;
    },
  });
  try {
    await client.connect(transport);
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } catch (error) {
    if (refused !== undefined) return refused;
    throw error;
  } finally {
    await client.close();
  }
}

describe('access to the MCP gateway', () => {
  let upstream: { url: string; server: HttpServer };
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  const tokens = { admin: '', alice: '', bob: '', carol: '' };

  beforeAll(async () => {
    upstream = await startUpstream();
    controlPlane = await startTestControlPlane();
    Object.assign(tokens, controlPlane.tokens);
    // alice uses alpha's servers and operates alpha; bob holds a role on alpha but not the sign-in key.
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer', 'mcp-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: [], projects: { alpha: ['mcp-gateway.viewer'] } });
    await controlPlane.grant('carol', { workspace: ['mcp-gateway'], projects: { beta: ['mcp-gateway.viewer'] } });

    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-access-')), 'config.yaml');
    writeFileSync(
      config,
      `upstreams:
  - { name: echo, url: "${upstream.url}" }
servers:
  - { id: tools, project: alpha, name: Tools, upstreams: [{ upstream: echo }] }
  - { id: beta-tools, project: beta, name: Beta tools, upstreams: [{ upstream: echo }] }
`,
    );
    database = await createTestDatabase();
    const port = await freePort();
    gateway = await startService(mcpGatewayService, {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: `127.0.0.1:${port}`,
      // MCP clients check that the metadata names the URL they called.
      MCPGW_PUBLIC_URL: `http://127.0.0.1:${port}`,
      MCPGW_LOG: 'off',
      MCPGW_CONFIG: config,
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
      MCPGW_CORS_ORIGINS: 'http://localhost:8080',
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await controlPlane?.stop();
    upstream?.server.close();
    await database?.drop();
  });

  it('lets a person with the sign-in key and a role on the project use its virtual server', async () => {
    expect(await toolsWith(`${gateway.url}/servers/tools/mcp`, tokens.alice)).toEqual(['echo']);
  });

  it('refuses a person without the mcp-gateway sign-in key, or without a role on the project', async () => {
    expect(await toolsWith(`${gateway.url}/servers/tools/mcp`, tokens.bob)).toBe(403);
    expect(await toolsWith(`${gateway.url}/servers/tools/mcp`, tokens.carol)).toBe(403);
    expect(await toolsWith(`${gateway.url}/servers/beta-tools/mcp`, tokens.carol)).toEqual(['echo']);
  });

  it('shows on /mcp only the servers the person may use, names prefixed by upstream', async () => {
    expect(await toolsWith(`${gateway.url}/mcp`, tokens.alice)).toEqual(['echo__echo']);
  });

  it('refuses /mcp with 403, as a virtual server does, to a person who may use no project at all', async () => {
    expect(await toolsWith(`${gateway.url}/mcp`, tokens.bob)).toBe(403);
    // admin signed in but holds no mcp-gateway grant: not an empty session either.
    expect(await toolsWith(`${gateway.url}/mcp`, tokens.admin)).toBe(403);
  });

  it('refuses a missing or forged credential with 401', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const anonymous = await fetch(`${gateway.url}/servers/tools/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(anonymous.status).toBe(401);
    // The challenge says where an MCP client learns which identity provider to sign the person in with (RFC 9728).
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(anonymous.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadataUrl).toBe(`${gateway.url}/.well-known/oauth-protected-resource/servers/tools/mcp`);
    expect(await (await fetch(metadataUrl!)).json()).toMatchObject({ resource: `${gateway.url}/servers/tools/mcp`, authorization_servers: [testIssuer()] });
    expect(await toolsWith(`${gateway.url}/servers/tools/mcp`, `${tokens.alice.slice(0, -8)}AAAAAAAA`)).toBe(401);
  });

  it('issues project-bound API keys to operators; a key reaches its project only and stops when deleted', async () => {
    const created = await json<{ id: string; key: string; key_hint: string }>(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'alpha', name: 'ci' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk-arbor-mcp-/);
    expect((await json(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'beta' })).status).toBe(403);

    expect(await toolsWith(`${gateway.url}/servers/tools/mcp`, created.body.key)).toEqual(['echo']);
    expect(await toolsWith(`${gateway.url}/servers/beta-tools/mcp`, created.body.key)).toBe(403);
    const listed = await json<{ keys: { id: string; key?: string }[] }>(gateway.url, 'GET', '/api/v1/keys', tokens.alice);
    expect(listed.body.keys.map((key) => key.id)).toEqual([created.body.id]);
    expect(listed.body.keys[0]?.key).toBeUndefined();
    // carol views beta only: alpha's keys are not hers to list, nor to delete.
    expect((await json<{ keys: unknown[] }>(gateway.url, 'GET', '/api/v1/keys', tokens.carol)).body.keys).toEqual([]);
    expect((await json(gateway.url, 'GET', '/api/v1/keys?project=alpha', tokens.carol)).status).toBe(403);
    expect((await json(gateway.url, 'DELETE', `/api/v1/keys/${created.body.id}`, tokens.carol)).status).toBe(403);

    expect((await json(gateway.url, 'DELETE', `/api/v1/keys/${created.body.id}`, tokens.alice)).status).toBe(204);
    expect(await toolsWith(`${gateway.url}/servers/tools/mcp`, created.body.key)).toBe(401);
  });

  it('serves clients that speak only stdio through arbor-mcp wrapper', async () => {
    const client = new Client({ name: 'stdio-only-client', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.resolve(__dirname, '../../../tools/arbor-mcp/src/main.ts'), 'wrapper', '--url', `${gateway.url}/servers/tools/mcp`],
        env: { PATH: process.env['PATH'] ?? '', MCP_AUTH: tokens.alice },
        stderr: 'ignore',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
      const result = await client.callTool({ name: 'echo', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'echoed' }]);
    } finally {
      await client.close();
    }
  });

  it('answers a lone JSON-RPC POST, as curl sends it, in the default stateless mode', async () => {
    const response = await fetch(`${gateway.url}/servers/tools/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'echoed' }] } });
  });

  it('answers 404 for a virtual server that does not exist', async () => {
    expect(await toolsWith(`${gateway.url}/servers/nowhere/mcp`, tokens.alice)).toBe(404);
  });
  it('lets an MCP client with no token sign a person in by itself: 401, protected resource metadata, the login form, authorization code + PKCE', async () => {
    const redirectUrl = 'http://127.0.0.1:47123/callback';
    let authorizationUrl: URL | undefined;
    let verifier = '';
    let saved: OAuthTokens | undefined;
    // The official SDK client's OAuth support, with the client registered in the realm (no dynamic registration).
    const provider: OAuthClientProvider = {
      redirectUrl,
      clientMetadata: { client_name: 'an IDE', redirect_uris: [redirectUrl], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      clientInformation: () => ({ client_id: 'arbor-mcp-clients' }),
      tokens: () => saved,
      saveTokens: (tokens) => void (saved = tokens),
      redirectToAuthorization: (url) => void (authorizationUrl = url),
      saveCodeVerifier: (value) => void (verifier = value),
      codeVerifier: () => verifier,
    };
    const serverUrl = new URL(`${gateway.url}/servers/tools/mcp`);
    const first = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await expect(new Client({ name: 'ide', version: '1' }).connect(first)).rejects.toThrow(/Unauthorized/);
    expect(authorizationUrl?.searchParams.get('resource')).toBe(serverUrl.href);

    // The person signs in on the identity provider's login form, as in a browser.
    const code = await signInOnLoginForm(authorizationUrl!, 'alice', redirectUrl);
    await first.finishAuth(code);
    expect(decodeJwtPayload(saved!.access_token)).toMatchObject({ aud: 'mcp-gateway', azp: 'arbor-mcp-clients', preferred_username: 'alice' });

    const client = new Client({ name: 'ide', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    } finally {
      await client.close();
    }
  });

  it("serves the suite dashboard's summary to each person for the projects they may see, from the browser's origin", async () => {
    const summary = async (token: string) => {
      const response = await fetch(`${gateway.url}/api/v1/dashboard/summary`, { headers: { authorization: `Bearer ${token}`, origin: 'http://localhost:8080' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:8080');
      return (await response.json()) as { product: string; status: string; tiles: { label: string; value: unknown; breakdown?: unknown[] }[] };
    };
    const tile = (body: Awaited<ReturnType<typeof summary>>, label: string) => body.tiles.find((candidate) => candidate.label === label);
    // One more tool call through alpha's server (earlier tests made some too).
    const before = tile(await summary(tokens.alice), 'Tool calls, last 24 h')?.value as number;
    const client = new Client({ name: 'dashboard-spec', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/servers/tools/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.alice}` } } }));
    await client.callTool({ name: 'echo', arguments: {} });
    await client.close();
    const alice = await summary(tokens.alice);
    expect(alice).toMatchObject({ product: 'mcp-gateway', status: 'ok' });
    expect(tile(alice, 'Virtual servers')).toEqual({ label: 'Virtual servers', value: 1, unit: null, breakdown: [{ project: 'alpha', value: 1 }] });
    expect(tile(alice, 'Tools exposed')?.value).toBe(1);
    expect(tile(alice, 'Tool calls, last 24 h')?.breakdown).toEqual([{ project: 'alpha', value: before + 1 }]);
    expect(tile(alice, 'Tool errors, last 24 h')?.value).toBe(0);
    expect(tile(alice, 'Upstreams down')?.value).toBe(0);
    const carol = await summary(tokens.carol);
    expect(tile(carol, 'Virtual servers')?.breakdown).toEqual([{ project: 'beta', value: 1 }]);
    expect(tile(carol, 'Tool calls, last 24 h')?.value).toBe(0);
    // bob holds a role on alpha without the mcp-gateway sign-in key: nothing to see.
    expect((await summary(tokens.bob)).tiles).toEqual([]);
  });
});

/** A browser on the identity provider: its cookies kept, the login form filled, redirects followed to `redirectUrl`; the code it gets. */
async function signInOnLoginForm(authorizationUrl: URL, person: string, redirectUrl: string): Promise<string> {
  const jar = new Map<string, string>();
  const visit = async (url: URL, init: RequestInit = {}): Promise<URL> => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const setCookie of response.headers.getSetCookie()) {
      const [name, value] = setCookie.split(';', 1)[0]!.split(/=(.*)/s) as [string, string];
      jar.set(name, value);
    }
    if (response.status >= 400)
      throw new Error(
        `${init.method ?? 'GET'} ${url.pathname} answered ${response.status}: ${(await response.text())
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(-400)}`,
      );
    await response.body?.cancel();
    return new URL(response.headers.get('location') ?? url.href, url);
  };
  const login = await visit(authorizationUrl);
  await visit(login);
  let next = await visit(login, { method: 'POST', body: new URLSearchParams({ username: person, password: person }) });
  for (let hops = 0; !next.href.startsWith(redirectUrl); hops++) {
    if (hops > 10) throw new Error(`no redirect to ${redirectUrl} after ten hops`);
    next = await visit(next);
  }
  const code = next.searchParams.get('code');
  if (!code) throw new Error(`the identity provider sent no code: ${next.href}`);
  return code;
}

function decodeJwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}
