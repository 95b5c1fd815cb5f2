// Who may call which tool, as a project's people and agents meet it: tool roles, a destructive
// tool kept for operators, API keys scoped to tools, per-tool rate limits counted in the shared
// Redis, list changes when a server's roles change, and the audit of tool calls. The official MCP
// SDK clients (both eras) with dev-idp tokens of real people, the control plane (built) deciding
// roles, PostgreSQL and Redis as the gateway runs on them, an upstream MCP server started here.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as DiscoverFirstClient, StreamableHTTPClientTransport as DiscoverFirstTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, freePort, startTestControlPlane, TestControlPlane, TestDatabase, testIssuer } from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

type Gateway = RunningService<InstanceType<typeof mcpGatewayService.schema>>;

/** A stateless upstream: `search` (echoes its query), `deploy`, `delete_repository` (destructive), two prompts, two resources. */
async function startRepositoryUpstream(): Promise<{ url: string; server: HttpServer }> {
  const server = createServer((req, res) => {
    const mcp = new McpServer({ name: 'repository-upstream', version: '1.0.0' });
    mcp.registerTool('search', { description: 'Finds issues', inputSchema: { query: z.string() }, annotations: { readOnlyHint: true } }, async ({ query }) => ({
      content: [{ type: 'text', text: `found: ${query}` }],
    }));
    mcp.registerTool('deploy', { description: 'Deploys', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'deployed' }] }));
    mcp.registerTool('delete_repository', { description: 'Deletes the repository', inputSchema: {}, annotations: { destructiveHint: true } }, async () => ({
      content: [{ type: 'text', text: 'deleted' }],
    }));
    mcp.registerPrompt('greeting', { description: 'Says hello' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
    mcp.registerPrompt('incident_review', { description: 'Reviews an incident' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'review' } }] }));
    mcp.registerResource('readme', 'note://readme', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'read me' }] }));
    mcp.registerResource('payroll', 'note://payroll', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'salaries' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

async function api<T>(gateway: Gateway, method: string, route: string, token: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${gateway.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** Waits until `check` holds (polling; the deadline only bounds a failing test). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, deadlineMs = 10_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface AuditRow {
  id: string;
  server: string | null;
  caller: { kind: string; id: string; name: string };
  upstream: string | null;
  tool: string;
  outcome: string;
  duration_ms: number;
  arguments?: unknown;
  result?: unknown;
}

describe('who may call which tool (tool roles, scoped keys, per-tool rate limits, the audit)', () => {
  let upstream: { url: string; server: HttpServer };
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: Gateway;
  let stateful: Gateway;
  let environment: Record<string, string>;
  let replica: () => Promise<Record<string, string>>;
  const clients: { close(): Promise<void> }[] = [];
  // Rate limits are counted in the shared Redis: names of this run's own keep other runs' counts apart.
  const run = randomUUID().slice(0, 8);
  const ops = `ops-${run}`;
  const audited = `audited-${run}`;

  beforeAll(async () => {
    upstream = await startRepositoryUpstream();
    controlPlane = await startTestControlPlane();
    // alice operates alpha; bob views it; carol only views beta.
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer', 'mcp-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    await controlPlane.grant('carol', { workspace: ['mcp-gateway'], projects: { beta: ['mcp-gateway.viewer'] } });
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-tool-access-')), 'config.yaml');
    writeFileSync(
      config,
      `upstreams:
  - { name: repo, url: "${upstream.url}" }
servers:
  - id: ${ops}
    project: alpha
    upstreams: [{ upstream: repo }]
    tool_roles: { deploy: operator }
    prompt_roles: { incident_review: operator }
    resource_roles: { "note://payroll": operator }
    tool_rate_limits: { search: { per_minute: 2 } }
  - { id: ${audited}, project: alpha, upstreams: [{ upstream: repo }], guardrails: [pii], audit_payloads: true }
guardrails:
  - guardrail_name: pii
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_mcp_call
      patterns:
        - { pattern_type: prebuilt, pattern_name: email, action: MASK }
`,
    );
    database = await createTestDatabase();
    const redisUrl = process.env['TEST_REDIS_URL'];
    if (!redisUrl) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    environment = {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LOG: 'off',
      MCPGW_CONFIG: config,
      MCPGW_REDIS_URL: redisUrl,
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    };
    // Replicas sharing Redis say where the others reach them.
    replica = async () => {
      const port = await freePort();
      return { MCPGW_LISTEN_ADDR: `127.0.0.1:${port}`, MCPGW_REPLICA_URL: `http://127.0.0.1:${port}` };
    };
    gateway = await startService(mcpGatewayService, { ...environment, ...(await replica()) });
    // A second replica on the same database and Redis, with sessions: list changes need a stream.
    stateful = await startService(mcpGatewayService, { ...environment, ...(await replica()), USE_STATEFUL_SESSIONS: 'true' });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await stateful?.close();
    await gateway?.close();
    await controlPlane?.stop();
    upstream?.server.close();
    await database?.drop();
  });

  async function client(on: Gateway, server: string, credential: string): Promise<Client> {
    const connected = new Client({ name: 'tool-access-spec', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${on.url}/servers/${server}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
    clients.push(connected);
    return connected;
  }

  async function discoverFirstClient(server: string, credential: string): Promise<DiscoverFirstClient> {
    const connected = new DiscoverFirstClient({ name: 'tool-access-spec', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await connected.connect(new DiscoverFirstTransport(new URL(`${gateway.url}/servers/${server}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
    clients.push(connected);
    return connected;
  }

  const names = (items: { name: string }[]) => items.map((item) => item.name).sort();
  const text = (result: unknown) => ((result as { content: { text?: string }[] }).content ?? []).map((block) => block.text ?? '').join('');

  it('hides from a viewer a tool that needs the operator role and a destructive one, and answers calling them as unknown tools; an operator sees and calls them', async () => {
    for (const on of [gateway, stateful]) {
      const viewer = await client(on, ops, controlPlane.tokens.bob);
      expect(names((await viewer.listTools()).tools)).toEqual(['search']);
      for (const tool of ['deploy', 'delete_repository']) {
        await expect(viewer.callTool({ name: tool, arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(`Tool ${tool} not found`) });
      }
      const operator = await client(on, ops, controlPlane.tokens.alice);
      expect(names((await operator.listTools()).tools)).toEqual(['delete_repository', 'deploy', 'search']);
      expect(text(await operator.callTool({ name: 'deploy', arguments: {} }))).toBe('deployed');
      expect(text(await operator.callTool({ name: 'delete_repository', arguments: {} }))).toBe('deleted');
    }
  });

  it('shows operators, beside each tool of the catalogue, the role it needs on each server and whether it is destructive', async () => {
    const catalogue = await api<{ items: { kind: string; name: string; destructive: boolean; required_roles: Record<string, string> }[] }>(
      gateway,
      'GET',
      `/api/v1/tools?server=${ops}`,
      controlPlane.tokens.alice,
    );
    const tool = (name: string) => catalogue.body.items.find((item) => item.kind === 'tool' && item.name === name);
    expect(tool('search')).toMatchObject({ destructive: false, required_roles: { [ops]: 'viewer', [audited]: 'viewer' } });
    expect(tool('deploy')).toMatchObject({ destructive: false, required_roles: { [ops]: 'operator', [audited]: 'viewer' } });
    expect(tool('delete_repository')).toMatchObject({ destructive: true, required_roles: { [ops]: 'operator', [audited]: 'operator' } });
    expect(catalogue.body.items.find((item) => item.name === 'note://payroll')).toMatchObject({ required_roles: { [ops]: 'operator' } });
  });

  it('holds a 2026-07-28 client to the same roles', async () => {
    const viewer = await discoverFirstClient(ops, controlPlane.tokens.bob);
    expect(viewer.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(names((await viewer.listTools()).tools)).toEqual(['search']);
    await expect(viewer.callTool({ name: 'deploy', arguments: {} })).rejects.toThrow(/Tool deploy not found/);
    const operator = await discoverFirstClient(ops, controlPlane.tokens.alice);
    expect(text(await operator.callTool({ name: 'deploy', arguments: {} }))).toBe('deployed');
  });

  it('keeps prompts and resources that need the operator role from viewers', async () => {
    const viewer = await client(gateway, ops, controlPlane.tokens.bob);
    expect(names((await viewer.listPrompts()).prompts)).toEqual(['greeting']);
    expect((await viewer.listResources()).resources.map((resource) => resource.uri)).toEqual(['note://readme']);
    await expect(viewer.getPrompt({ name: 'incident_review' })).rejects.toMatchObject({ code: -32602 });
    await expect(viewer.readResource({ uri: 'note://payroll' })).rejects.toMatchObject({ code: -32002 });
    const operator = await client(gateway, ops, controlPlane.tokens.alice);
    expect(names((await operator.listPrompts()).prompts)).toEqual(['greeting', 'incident_review']);
    expect((await operator.readResource({ uri: 'note://payroll' })).contents).toEqual([{ uri: 'note://payroll', text: 'salaries' }]);
  });

  it('issues an API key scoped to one tool, which sees and calls that tool only', async () => {
    const created = await api<{ id: string; key: string; tools: string[] | null }>(gateway, 'POST', '/api/v1/keys', controlPlane.tokens.alice, {
      project: 'alpha',
      name: 'deploy bot',
      tools: ['deploy'],
    });
    expect(created.status).toBe(201);
    expect(created.body.tools).toEqual(['deploy']);
    const listed = await api<{ keys: { id: string; tools: string[] | null }[] }>(gateway, 'GET', '/api/v1/keys?project=alpha', controlPlane.tokens.alice);
    expect(listed.body.keys.find((key) => key.id === created.body.id)?.tools).toEqual(['deploy']);

    const agent = await client(gateway, ops, created.body.key);
    expect(names((await agent.listTools()).tools)).toEqual(['deploy']);
    expect(text(await agent.callTool({ name: 'deploy', arguments: {} }))).toBe('deployed');
    await expect(agent.callTool({ name: 'search', arguments: { query: 'x' } })).rejects.toMatchObject({ code: -32602 });

    // An unscoped key of the same project reaches every tool, as its operators do.
    const unscoped = await api<{ key: string; tools: null }>(gateway, 'POST', '/api/v1/keys', controlPlane.tokens.alice, { project: 'alpha' });
    expect(unscoped.body.tools).toBeNull();
    expect(names((await (await client(gateway, ops, unscoped.body.key)).listTools()).tools)).toEqual(['delete_repository', 'deploy', 'search']);
  });

  it('refuses a tool scope that is not a list of names', async () => {
    for (const tools of [[], 'deploy', [''], [42]]) {
      const refused = await api<{ error: { code: string; message: string } }>(gateway, 'POST', '/api/v1/keys', controlPlane.tokens.alice, { project: 'alpha', tools });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('tools') });
    }
  });

  it('refuses the third call in a minute of a tool limited to two, for that person only, with the retry time', async () => {
    // All three calls within one minute of the clock the limit counts by.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
    const bob = await client(gateway, ops, controlPlane.tokens.bob);
    expect(text(await bob.callTool({ name: 'search', arguments: { query: 'one' } }))).toBe('found: one');
    // The second through the other replica: the count is shared through Redis.
    const bobElsewhere = await client(stateful, ops, controlPlane.tokens.bob);
    expect(text(await bobElsewhere.callTool({ name: 'search', arguments: { query: 'two' } }))).toBe('found: two');
    const refused = await bob.callTool({ name: 'search', arguments: { query: 'three' } }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string; data: { retry_after_seconds: number; per_minute: number } },
    );
    expect(refused).toMatchObject({ code: -32029, message: expect.stringMatching(/Rate limit exceeded: .*"search".* 2 calls a minute .*retry in \d+ s/) });
    expect(refused?.data).toMatchObject({ tool: 'search', per_minute: 2, retry_after_seconds: expect.any(Number) });
    expect(refused!.data.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(refused!.data.retry_after_seconds).toBeLessThanOrEqual(60);

    const alice = await client(gateway, ops, controlPlane.tokens.alice);
    expect(text(await alice.callTool({ name: 'search', arguments: { query: 'mine' } }))).toBe('found: mine');

    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`arbor_mcpgw_tool_rate_limited_total\\{server="${ops}",tool="search"[^}]*\\} 1`));
  });

  it('tells an open session that its tool list changed when the server gets tool roles, without reconnecting', async () => {
    const server = `live-${run}`;
    const created = await api(stateful, 'POST', '/api/v1/servers', controlPlane.tokens.alice, { id: server, project: 'alpha', upstreams: [{ upstream: 'repo' }] });
    expect(created.status).toBe(201);
    const viewer = await client(stateful, server, controlPlane.tokens.bob);
    expect(names((await viewer.listTools()).tools)).toEqual(['deploy', 'search']);
    let changed = false;
    viewer.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed = true));

    const updated = await api<{ tool_roles: Record<string, string> }>(stateful, 'PATCH', `/api/v1/servers/${server}`, controlPlane.tokens.alice, {
      tool_roles: { search: 'operator', delete_repository: 'viewer' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.tool_roles).toEqual({ search: 'operator', delete_repository: 'viewer' });
    await eventually(async () => (changed ? true : undefined), 'notifications/tools/list_changed on the open session');
    expect(names((await viewer.listTools()).tools)).toEqual(['delete_repository', 'deploy']);
  });

  it("tells an open session of an API key that its tool list changed when the key's scope does", async () => {
    const created = await api<{ id: string; key: string }>(stateful, 'POST', '/api/v1/keys', controlPlane.tokens.alice, { project: 'alpha', tools: ['search'] });
    const agent = await client(stateful, ops, created.body.key);
    expect(names((await agent.listTools()).tools)).toEqual(['search']);
    let changed = false;
    agent.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed = true));

    const updated = await api<{ tools: string[] | null }>(stateful, 'PATCH', `/api/v1/keys/${created.body.id}`, controlPlane.tokens.alice, { tools: ['search', 'deploy'] });
    expect(updated).toMatchObject({ status: 200, body: { tools: ['search', 'deploy'] } });
    await eventually(async () => (changed ? true : undefined), "notifications/tools/list_changed on the key's session");
    expect(names((await agent.listTools()).tools)).toEqual(['deploy', 'search']);

    // null: every tool again; a viewer may not change a key.
    expect((await api<{ tools: null }>(stateful, 'PATCH', `/api/v1/keys/${created.body.id}`, controlPlane.tokens.alice, { tools: null })).body.tools).toBeNull();
    expect((await api(stateful, 'PATCH', `/api/v1/keys/${created.body.id}`, controlPlane.tokens.bob, { tools: ['deploy'] })).status).toBe(403);
  });

  it('refuses tool roles and rate limits that are not what the API takes', async () => {
    for (const body of [
      { tool_roles: { deploy: 'admin' } },
      { tool_roles: ['deploy'] },
      { tool_rate_limits: { search: { per_minute: 0 } } },
      { tool_rate_limits: { search: 5 } },
    ]) {
      const refused = await api<{ error: { code: string; message: string } }>(gateway, 'POST', '/api/v1/servers', controlPlane.tokens.alice, {
        id: `bad-${run}`,
        project: 'alpha',
        upstreams: [{ upstream: 'repo' }],
        ...body,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.message).toContain(Object.keys(body)[0]);
    }
  });

  it("records every tool call for the project's operators (person or key, outcome, duration, never the arguments), paged, and refuses it to viewers and outsiders", async () => {
    const bob = await client(gateway, ops, controlPlane.tokens.bob);
    await bob.callTool({ name: 'deploy', arguments: {} }).catch(() => undefined);
    // The latest call of all: once it is in, so is every earlier one of this replica. (A server of
    // one upstream that selects all of its tools passes a name it does not list on: its answer is the upstream's.)
    await bob.callTool({ name: `no_such_tool_${run}`, arguments: {} }).catch(() => undefined);
    const rows = await eventually(async () => {
      const page = await api<{ tool_calls: AuditRow[] }>(gateway, 'GET', `/api/v1/tool-calls?server=${ops}&limit=200`, controlPlane.tokens.alice);
      return page.body.tool_calls[0]?.tool === `no_such_tool_${run}` ? page.body.tool_calls : undefined;
    }, 'the latest call in the audit');
    expect(rows[0]).toMatchObject({ outcome: 'tool_error', upstream: 'repo', caller: { kind: 'person', name: 'bob' } });
    expect(rows[1]).toMatchObject({ outcome: 'denied', upstream: 'repo', tool: 'deploy', caller: { name: 'bob' } });
    expect(rows.find((row) => row.outcome === 'rate_limited')).toMatchObject({ server: ops, upstream: 'repo', tool: 'search', caller: { kind: 'person', name: 'bob' } });
    const ok = rows.find((row) => row.outcome === 'ok' && row.tool === 'deploy' && row.caller.kind === 'person');
    expect(ok).toMatchObject({ server: ops, upstream: 'repo', caller: { name: 'alice' }, duration_ms: expect.any(Number) });
    const keyCalls = rows.filter((row) => row.caller.kind === 'key' && row.caller.name === 'deploy bot');
    expect(keyCalls.map((row) => [row.tool, row.outcome])).toEqual([
      ['search', 'denied'],
      ['deploy', 'ok'],
    ]);
    for (const row of rows) expect(row).not.toHaveProperty('arguments');

    const first = await api<{ tool_calls: AuditRow[]; next_before_id: string | null }>(gateway, 'GET', `/api/v1/tool-calls?server=${ops}&limit=2`, controlPlane.tokens.alice);
    expect(first.body.tool_calls).toHaveLength(2);
    const second = await api<{ tool_calls: AuditRow[] }>(
      gateway,
      'GET',
      `/api/v1/tool-calls?server=${ops}&limit=2&before_id=${first.body.next_before_id}`,
      controlPlane.tokens.alice,
    );
    expect(second.body.tool_calls[0]?.id).toBe(rows[2]?.id);

    expect((await api(gateway, 'GET', `/api/v1/tool-calls?server=${ops}`, controlPlane.tokens.bob)).status).toBe(403);
    expect((await api(gateway, 'GET', `/api/v1/tool-calls?server=${ops}`, controlPlane.tokens.carol)).status).toBe(403);
    expect((await api(gateway, 'GET', '/api/v1/tool-calls?project=alpha', controlPlane.tokens.carol)).status).toBe(403);
    expect((await api(gateway, 'GET', '/api/v1/tool-calls?limit=0', controlPlane.tokens.alice)).status).toBe(400);
  });

  it('keeps arguments and results in the audit when the server asks, masked by its guardrails', async () => {
    const alice = await client(gateway, audited, controlPlane.tokens.alice);
    expect(text(await alice.callTool({ name: 'search', arguments: { query: 'mail ada@example.com' } }))).toBe('found: mail [EMAIL_REDACTED]');
    const row = await eventually(async () => {
      const page = await api<{ tool_calls: AuditRow[] }>(gateway, 'GET', `/api/v1/tool-calls?server=${audited}`, controlPlane.tokens.alice);
      return page.body.tool_calls[0];
    }, 'the call in the audit');
    expect(row).toMatchObject({
      tool: 'search',
      outcome: 'ok',
      arguments: { query: 'mail [EMAIL_REDACTED]' },
      result: { content: [{ type: 'text', text: 'found: mail [EMAIL_REDACTED]' }] },
    });
    expect(JSON.stringify(row)).not.toContain('ada@example.com');
  });

  it('writes the calls still waiting when the gateway stops', async () => {
    const stopping = await startService(mcpGatewayService, { ...environment, ...(await replica()) });
    const since = new Date();
    const alice = new Client({ name: 'tool-access-spec', version: '1.0.0' });
    await alice.connect(
      new StreamableHTTPClientTransport(new URL(`${stopping.url}/servers/${ops}/mcp`), { requestInit: { headers: { authorization: `Bearer ${controlPlane.tokens.alice}` } } }),
    );
    await alice.callTool({ name: 'deploy', arguments: {} });
    await alice.close();
    // At once: well within the second the audit waits to write a batch.
    await stopping.close();
    const { Client: PgClient } = await import('pg');
    const pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ tool: string; caller_name: string }>('select tool, caller_name from mcp_tool_calls where called_at >= $1', [since]);
      expect(rows).toEqual([{ tool: 'deploy', caller_name: 'alice' }]);
    } finally {
      await pg.end();
    }
  });

  it('documents the new routes and fields in its OpenAPI document', async () => {
    const document = (await (await fetch(`${gateway.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(Object.keys(document.paths['/api/v1/tool-calls'] ?? {})).toEqual(['get']);
    expect(Object.keys(document.paths['/api/v1/keys/{id}'] ?? {})).toEqual(expect.arrayContaining(['patch', 'delete']));
    expect(Object.keys(document.components.schemas['CreateServerDto']?.properties ?? {})).toEqual(
      expect.arrayContaining(['tool_roles', 'resource_roles', 'prompt_roles', 'tool_rate_limits', 'audit_payloads']),
    );
    expect(Object.keys(document.components.schemas['CreateMcpApiKeyDto']?.properties ?? {})).toContain('tools');
  });

  it('keeps the audit append-only', async () => {
    const { Client: PgClient } = await import('pg');
    const pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    try {
      await expect(pg.query("update mcp_tool_calls set tool = 'x'")).rejects.toThrow(/append-only/);
      await expect(pg.query('delete from mcp_tool_calls')).rejects.toThrow(/append-only/);
    } finally {
      await pg.end();
    }
  });
});
