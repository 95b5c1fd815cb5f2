// Both gateways managed by the control plane, end to end as an operator runs them: the built
// control plane, sync dispatcher, AI gateway and MCP gateway as processes on real PostgreSQL,
// dev-idp tokens, the fake providers and a small upstream MCP server. A project renamed or deleted
// in the control plane reaches both gateways through the dispatcher within seconds.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  BuiltService,
  createTestDatabase,
  machineToken,
  FakeProvidersProcess,
  freePort,
  startBuiltService,
  startTestControlPlane,
  TestControlPlane,
  TestDatabase,
  testIssuer,
} from '@arbor/testing';
import { managedBy, MASTER_KEY, sdkClient, startFake, writeConfig } from './testing/gateway-test-support';

/** An upstream with tools `one` and `two`; `seen` keeps the authorization header of each tool call. */
async function startUpstream(): Promise<{ url: string; server: HttpServer; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const mcp = new McpServer({ name: 'test-upstream', version: '1.0.0' });
    for (const name of ['one', 'two']) {
      mcp.registerTool(name, { description: `Tool ${name}`, inputSchema: {} }, async () => {
        seen.push(req.headers.authorization ?? '');
        return { content: [{ type: 'text', text: name }] };
      });
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server, seen };
}

/** Asks `check` every 100 ms until it holds (the dispatcher delivers within its poll interval); its last answer. */
async function eventually<T>(check: () => Promise<T>, holds: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let tries = 0; tries < 100; tries += 1) {
    last = await check();
    if (holds(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within 10 s; last: ${JSON.stringify(last)}`);
}

describe('both gateways follow the control plane through project sync', () => {
  let controlPlane: TestControlPlane;
  let fake: FakeProvidersProcess;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let aiDatabase: TestDatabase;
  let mcpDatabase: TestDatabase;
  let aiGateway: BuiltService;
  let mcpGateway: BuiltService;
  let dispatcher: BuiltService;
  let aiEnv: Record<string, string>;
  let aiPort: number;
  const projectIds: Record<string, string> = {};

  const admin = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${controlPlane.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${controlPlane.tokens.admin}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  interface SpendTotals {
    requests: number;
  }
  interface Answer {
    status: number;
    body: { id?: string; key?: string; project?: string; repository?: string | null; totals?: SpendTotals; by_repository?: unknown[]; error?: { code: string } };
  }
  const master = async (method: string, route: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${aiGateway.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  };
  /** Calls `tool` on a virtual server as alice; the text it answered. */
  const callTool = async (server: string, tool: string) => {
    const client = new Client({ name: 'sync-spec', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcpGateway.url}/servers/${server}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${controlPlane.tokens.alice}` } },
      }),
    );
    try {
      return await client.callTool({ name: tool, arguments: {} });
    } finally {
      await client.close();
    }
  };
  /** alice's view of /mcp: the tool names she is offered. */
  const catalogue = async () => {
    const client = new Client({ name: 'sync-spec', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${mcpGateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${controlPlane.tokens.alice}` } } }),
    );
    try {
      return (await client.listTools()).tools.map((tool) => tool.name).sort();
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    controlPlane = await startTestControlPlane(['alpha', 'beta']);
    const { projects } = (await admin('GET', '/api/v1/projects')) as { projects: { id: string; slug: string }[] };
    for (const project of projects) projectIds[project.slug] = project.id;
    // alice may use the MCP gateway on every project (so that only the sync can hide a server from her).
    await controlPlane.grant('alice', { workspace: ['mcp-gateway', 'mcp-gateway.viewer'], projects: {} });
    await controlPlane.grant('carol', { workspace: ['mcp-gateway', 'mcp-gateway.operator'], projects: {} });
    [fake, upstream, aiDatabase, mcpDatabase] = await Promise.all([startFake(), startUpstream(), createTestDatabase(), createTestDatabase()]);
    aiPort = await freePort();
    aiEnv = {
      AIGW_DATABASE_URL: aiDatabase.url,
      AIGW_LOG: 'off',
      AIGW_MASTER_KEY: MASTER_KEY,
      AIGW_CONFIG: writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
`),
      ...managedBy(controlPlane),
    };
    aiGateway = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', aiEnv, aiPort);
    mcpGateway = await startBuiltService('mcp-gateway', 'MCPGW_LISTEN_ADDR', {
      MCPGW_DATABASE_URL: mcpDatabase.url,
      // Everything it logs is searched for the repository token below.
      MCPGW_LOG: 'debug',
      MCPGW_SECRETS_KEY: Buffer.alloc(32, 5).toString('base64'),
      MCPGW_CONFIG: writeConfig(`upstreams:
  - { name: tools, url: "${upstream.url}", headers: { authorization: "Bearer {{project.repository_token}}" } }
servers:
  - { id: alpha-tools, project: alpha, name: Alpha tools, upstreams: [{ upstream: tools, tools: [one] }] }
  - { id: beta-tools, project: beta, name: Beta tools, upstreams: [{ upstream: tools, tools: [two] }] }
`),
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
      // The administrator's approval: repository tokens go to the test upstream's host only.
      MCPGW_REPOSITORY_TOKEN_HOSTS: '127.0.0.1',
    });
    dispatcher = await startBuiltService('sync-dispatcher', 'CP_DISPATCHER_LISTEN_ADDR', {
      CP_DATABASE_URL: controlPlane.databaseUrl,
      CP_OIDC_ISSUER_URL: testIssuer(),
      CP_M2M_CLIENT_ID: 'control-plane-m2m',
      CP_M2M_CLIENT_SECRET: 'dev-control-plane-m2m-secret',
      CP_LOG: 'off',
      CP_DISPATCHER_POLL_INTERVAL: '200ms',
      CP_AI_GATEWAY_API_URL: aiGateway.url,
      CP_MCP_GATEWAY_API_URL: mcpGateway.url,
      CP_MCP_GATEWAY_SYNC_PATH: '/admin/sync/control-plane/projects',
    });
  }, 90_000);

  afterAll(async () => {
    await dispatcher?.kill('SIGTERM');
    await aiGateway?.kill('SIGTERM');
    await mcpGateway?.kill('SIGTERM');
    await controlPlane?.stop();
    await Promise.all([aiDatabase?.drop(), mcpDatabase?.drop(), fake?.stop()]);
    upstream?.server.close();
  });

  it("makes a key for a person only when the control plane knows them on the key's project: user_id is checked there", async () => {
    // alice has the MCP gateway's roles on every project; bob has no role at all.
    const made = await master('POST', '/api/v1/keys', { project: 'alpha', user_id: controlPlane.ids.alice });
    expect(made).toMatchObject({ status: 201, body: { user_id: controlPlane.ids.alice } });
    expect(await master('POST', '/key/generate', { team_id: 'alpha', user_id: controlPlane.ids.bob })).toMatchObject({
      status: 400,
      body: { error: { code: 'user_not_in_project' } },
    });
    expect(await master('POST', '/team/member_update', { team_id: 'alpha', user_id: '00000000-0000-4000-8000-000000000000', max_budget_in_team: 1 })).toMatchObject({
      status: 400,
      body: { error: { code: 'user_not_found' } },
    });
  });

  it('refuses a key, a virtual server or an API key for a project the control plane does not know: 404 project_not_found', async () => {
    const answer = await master('POST', '/api/v1/keys', { project: 'nope' });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({ code: 'project_not_found' });
    const asCarol = async (route: string, body: unknown) => {
      const response = await fetch(`${mcpGateway.url}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${controlPlane.tokens.carol}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: string } } };
    };
    for (const refused of [
      await asCarol('/api/v1/servers', { id: 'nope-tools', project: 'nope', upstreams: [{ upstream: 'tools' }] }),
      await asCarol('/api/v1/keys', { project: 'nope', name: 'ci' }),
    ]) {
      expect(refused).toMatchObject({ status: 404, body: { error: { code: 'project_not_found' } } });
    }
    expect((await asCarol('/api/v1/keys', { project: 'beta', name: 'ci' })).status).toBe(201);
  });

  it('scopes a key to one repository of its project, checked with the control plane, and groups spend by repository', async () => {
    await admin('POST', `/api/v1/projects/${projectIds['beta']}/repositories`, {
      source_host: 'github.com',
      owner: 'acme',
      name: 'payments',
      branch: 'main',
      installation_id: '42',
    });
    const wrong = await master('POST', '/api/v1/keys', { project: 'beta', repository: 'github.com/acme/unknown' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'repository_not_in_project' });
    const scoped = await master('POST', '/api/v1/keys', { project: 'beta', repository: 'github.com/acme/payments' });
    expect(scoped.status).toBe(201);
    expect(scoped.body.repository).toBe('github.com/acme/payments');
    const whole = await master('POST', '/api/v1/keys', { project: 'beta' });
    await sdkClient(aiGateway, scoped.body.key as string).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'from CI' }] });
    await sdkClient(aiGateway, whole.body.key as string).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'from a person' }] });
    const report = await master('GET', '/api/v1/spend?project=beta');
    expect(report.body.by_repository).toHaveLength(2);
    expect(report.body.by_repository).toEqual(
      expect.arrayContaining([expect.objectContaining({ repository: 'github.com/acme/payments', requests: 1 }), expect.objectContaining({ repository: null, requests: 1 })]),
    );
  });

  it("sends the upstream the calling server's project repository token, read per call, and never logs it", async () => {
    const token = `ghs_repositoryToken${Date.now()}`;
    await admin('PUT', `/api/v1/projects/${projectIds['beta']}/repository-secret`, { value: token });
    expect(await callTool('beta-tools', 'two')).toMatchObject({ content: [{ type: 'text', text: 'two' }] });
    expect(upstream.seen.at(-1)).toBe(`Bearer ${token}`);
    // Replaced in the control plane: the next call carries the new one (nothing kept).
    const replaced = `${token}-replaced`;
    await admin('PUT', `/api/v1/projects/${projectIds['beta']}/repository-secret`, { value: replaced });
    await callTool('beta-tools', 'two');
    expect(upstream.seen.at(-1)).toBe(`Bearer ${replaced}`);
    // Log lines leave in batches, at least every 100 ms: the calls' lines are waited for, then read.
    const logged = await eventually(
      async () => mcpGateway.output(),
      (output) => output.includes('beta-tools'),
      "the request lines of the calls in the MCP gateway's log",
    );
    expect(logged).not.toContain(token);
  });

  it("refuses a workspace operator's own upstream that asks for the repository token on a host not approved", async () => {
    const own = await fetch(`${mcpGateway.url}/api/v1/upstreams`, {
      method: 'POST',
      headers: { authorization: `Bearer ${controlPlane.tokens.carol}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'carols', url: upstream.url.replace('127.0.0.1', 'localhost'), headers: { authorization: 'Bearer {{project.repository_token}}' } }),
    });
    expect(own.status).toBe(400);
    expect(((await own.json()) as { error: { code: string } }).error.code).toBe('repository_token_not_allowed');
  });

  it("lists the project's repositories on the virtual server's admin view", async () => {
    const response = await fetch(`${mcpGateway.url}/api/v1/servers/beta-tools`, { headers: { authorization: `Bearer ${controlPlane.tokens.carol}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { project: string; repositories: { full_name: string; branch: string }[] };
    expect(body.project).toBe('beta');
    expect(body.repositories).toEqual([expect.objectContaining({ full_name: 'github.com/acme/payments', branch: 'main' })]);
  });

  it("moves a renamed project's key and spend to the new slug, and after its deletion refuses the key while the spend stays reportable — also after a restart", async () => {
    const created = await master('POST', '/api/v1/keys', { project: 'alpha' });
    expect(created.status).toBe(201);
    const client = sdkClient(aiGateway, created.body.key as string);
    await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'before the rename' }] });
    const mcpKey = await fetch(`${mcpGateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${controlPlane.tokens.carol}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'alpha', name: 'agent' }),
    }).then(async (response) => ((await response.json()) as { key: string }).key);
    const initializeWith = (key: string) =>
      fetch(`${mcpGateway.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      }).then(async (response) => ({ status: response.status, text: await response.text() }));
    expect((await initializeWith(mcpKey)).status).toBe(200);
    expect(await catalogue()).toEqual(['tools__one', 'tools__two']);

    await admin('PATCH', `/api/v1/projects/${projectIds['alpha']}`, { slug: 'alpha-renamed' });
    await eventually(
      () => master('GET', `/api/v1/keys/${created.body.id}`),
      (answer) => answer.body.project === 'alpha-renamed',
      'the key moving to alpha-renamed',
    );
    await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'after the rename' }] });
    const report = await eventually(
      () => master('GET', '/api/v1/spend?project=alpha-renamed'),
      (answer) => answer.body.totals?.requests === 2,
      'both calls in the spend report of alpha-renamed',
    );
    expect(report.body.project).toBe('alpha-renamed');
    expect((await master('GET', '/api/v1/spend?project=alpha')).body.totals?.requests ?? 0).toBe(0);

    await admin('DELETE', `/api/v1/projects/${projectIds['alpha']}`);
    const refused = await eventually(
      () =>
        client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'after the deletion' }] }).then(
          () => null,
          (error: unknown) => error as { status?: number; code?: string; message?: string },
        ),
      (error) => error !== null,
      'the key being refused',
    );
    expect(refused).toMatchObject({ status: 401, code: 'project_deleted' });
    expect(refused?.message).toContain('alpha-renamed');
    // Calls made until the deletion arrived were answered and count; the history stays.
    const kept = (
      await eventually(
        () => master('GET', '/api/v1/spend?project=alpha-renamed'),
        (answer) => answer.status === 200,
        'the spend report',
      )
    ).body.totals;
    expect(kept?.requests).toBeGreaterThanOrEqual(2);
    await eventually(catalogue, (tools) => tools.length === 1, "alpha's virtual server leaving /mcp");
    expect(await catalogue()).toEqual(['tools__two']);
    const refusedKey = await initializeWith(mcpKey);
    expect(refusedKey.status).toBe(401);
    expect(refusedKey.text).toContain('project_deleted');

    // A restart keeps all of it: the database has it, not the process.
    await aiGateway.kill('SIGTERM');
    aiGateway = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', aiEnv, aiPort);
    await expect(client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'after the restart' }] })).rejects.toMatchObject({
      status: 401,
      code: 'project_deleted',
    });
    expect((await master('GET', '/api/v1/spend?project=alpha-renamed')).body.totals).toEqual(kept);
  });

  it('answers a delivery for a project it never heard of with 204, again and again, and a delivery it cannot check with 5xx so that it comes again', async () => {
    const deliver = async (url: string, slugs: string[]) =>
      (
        await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${await machineToken('control-plane-m2m')}`, 'content-type': 'application/json' },
          body: JSON.stringify({ slugs }),
        })
      ).status;
    const targets = [`${aiGateway.url}/api/v1/sync/control-plane/projects`, `${mcpGateway.url}/admin/sync/control-plane/projects`];
    for (const target of targets) {
      expect(await deliver(target, ['never-heard-of'])).toBe(204);
      expect(await deliver(target, ['never-heard-of', 'beta'])).toBe(204);
      expect(await deliver(target, ['never-heard-of', 'beta'])).toBe(204);
    }
    await controlPlane.stop();
    for (const target of targets) expect(await deliver(target, ['beta'])).toBe(500);
  });
});
