// A2A agents through the MCP gateway, as an operator and a company's clients meet them: the demo
// agent (built with the official A2A SDK, server side) registered through the admin API; the
// official A2A client, given the gateway's card, sends and streams through the gateway; a v0.3
// client; agents as tools answering the official MCP client. Real PostgreSQL, the built control
// plane, dev-idp tokens.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Message, type Part, Role, type SendMessageRequest, type StreamResponse, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, DemoAgentProcess, freePort, machineToken, startDemoAgent, startTestControlPlane, TestControlPlane, TestDatabase, testIssuer } from '@arbor/testing';
import { DataSource } from 'typeorm';
import { mcpGatewayService } from './mcp-gateway.module';

const AGENT_TOKEN = 'agent-s3cret-token';

async function json<T>(baseUrl: string, method: string, route: string, token: string, body?: unknown): Promise<{ status: number; body: T; text: string }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, text };
}

const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function ask(text: string): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

const said = (parts: readonly Part[] | undefined) => (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

/** fetch with the caller's bearer token, as an A2A client configured with it sends every request. */
const withToken =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

/** The official A2A client, given the card URL the gateway serves under `cardBase`, every request carrying `token`. */
async function a2aClient(cardBase: string, token: string, preferred?: 'JSONRPC' | 'HTTP+JSON') {
  const fetchImpl = withToken(token);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      ...(preferred ? { preferredTransports: [preferred] } : {}),
    }),
  );
  return factory.createFromUrl(`${cardBase}/.well-known/agent-card.json`, '');
}

describe('A2A agents through the MCP gateway', () => {
  let agent: DemoAgentProcess;
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  const tokens = { admin: '', alice: '', bob: '', carol: '' };

  beforeAll(async () => {
    // The agent wants its own token: it answers only what the gateway's `auth` sends it.
    agent = await startDemoAgent({ token: AGENT_TOKEN });
    controlPlane = await startTestControlPlane(['alpha', 'beta', 'gamma']);
    Object.assign(tokens, controlPlane.tokens);
    await controlPlane.grant('alice', {
      workspace: ['mcp-gateway'],
      projects: { alpha: ['mcp-gateway.viewer', 'mcp-gateway.operator'], beta: ['mcp-gateway.operator'], gamma: ['mcp-gateway.operator'] },
    });
    await controlPlane.grant('carol', { workspace: ['mcp-gateway'], projects: { beta: ['mcp-gateway.viewer'] } });
    database = await createTestDatabase();
    const port = await freePort();
    gateway = await startService(mcpGatewayService, {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: `127.0.0.1:${port}`,
      MCPGW_PUBLIC_URL: `http://127.0.0.1:${port}`,
      MCPGW_LOG: 'off',
      MCPGW_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    });
    const registered = await json<{ name: string }>(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
      name: 'helpdesk',
      url: agent.url,
      project: 'alpha',
      description: 'The company helpdesk.',
      auth: { type: 'static', headers: { Authorization: `Bearer ${AGENT_TOKEN}` } },
    });
    expect(registered.status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    await gateway?.close();
    await controlPlane?.stop();
    await agent?.stop();
    await database?.drop();
  });

  it("registers an agent from its card: the skills kept, the header's value never shown", async () => {
    const { status, body, text } = await json<{
      card: { name: string; skills: { id: string }[]; interfaces: { protocol_version: string }[] };
      auth: { type: string; header_names: string[] };
      health: { state: string };
      card_url: string;
    }>(gateway.url, 'GET', '/api/v1/agents/helpdesk', tokens.alice);
    expect(status).toBe(200);
    expect(body.card.name).toBe('Helpdesk agent');
    expect(body.card.skills.map((skill) => skill.id)).toEqual(['answer', 'book']);
    expect(body.auth).toEqual({ type: 'static', header_names: ['authorization'] });
    expect(body.health.state).toBe('up');
    expect(body.card_url).toBe(`${gateway.url}/agents/helpdesk/.well-known/agent-card.json`);
    expect(text).not.toContain(AGENT_TOKEN);
    const rows = (await gateway.app.get(DataSource).query("select encode(headers_ciphertext, 'hex') as sealed from agents")) as { sealed: string }[];
    expect(rows[0].sealed).not.toContain(Buffer.from(AGENT_TOKEN).toString('hex'));
  });

  it("takes an upstream's per-caller auth for an agent, showing everything but the OAuth client secret, which is stored sealed", async () => {
    const created = await json<{ auth: unknown }>(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
      name: 'partner',
      url: agent.url,
      project: 'alpha',
      auth: { type: 'oauth', client_id: 'arbor', client_secret: 'partner-s3cret' },
    });
    expect(created.status).toBe(201);
    expect(created.body.auth).toEqual({ type: 'oauth', client_id: 'arbor', has_client_secret: true, client_credentials: false, header_names: [] });
    // Named again without its secret: the stored one stays.
    const rescoped = await json<{ auth: unknown }>(gateway.url, 'PATCH', '/api/v1/agents/partner', tokens.alice, { auth: { type: 'oauth', client_id: 'arbor', scope: 'read' } });
    expect(rescoped.body.auth).toEqual({ type: 'oauth', client_id: 'arbor', scope: 'read', has_client_secret: true, client_credentials: false, header_names: [] });
    const rows = (await gateway.app.get(DataSource).query("select auth_kind, auth_settings, auth_secret_ciphertext as sealed from agents where name = 'partner'")) as {
      auth_kind: string;
      auth_settings: unknown;
      sealed: Buffer | null;
    }[];
    expect(rows[0]).toMatchObject({ auth_kind: 'oauth', auth_settings: { clientId: 'arbor', scope: 'read' } });
    expect(rows[0]?.sealed?.toString('latin1')).not.toContain('partner-s3cret');
    for (const answer of [created, rescoped, await json(gateway.url, 'GET', '/api/v1/agents/partner', tokens.alice)]) expect(answer.text).not.toContain('s3cret');

    const bad = await json<{ error: { details: { fields: Record<string, string[]> } } }>(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
      name: 'bad',
      url: agent.url,
      project: 'alpha',
      auth: { type: 'token_exchange', headers: { authorization: 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields['auth']).toEqual(['auth.headers is not a setting of token_exchange auth (type, audience, scope); auth.audience is required']);
    expect((await json(gateway.url, 'DELETE', '/api/v1/agents/partner', tokens.alice)).status).toBe(204);
  });

  it('refuses an agent whose card cannot be read or whose address is a cloud metadata service', async () => {
    const unreadable = await json<{ error: { code: string } }>(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
      name: 'nowhere',
      url: 'http://127.0.0.1:9/',
      project: 'alpha',
    });
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.error.code).toBe('agent_card_unreadable');
    const metadata = await json<{ error: { code: string; details: { fields: Record<string, string[]> } } }>(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
      name: 'cloud',
      url: 'http://169.254.169.254/',
      project: 'alpha',
    });
    expect(metadata.status).toBe(400);
    expect(metadata.body.error.code).toBe('agent_card_unreadable');
    // Beside the address, where a form shows it.
    expect(metadata.body.error.details.fields['url']).toEqual([expect.stringMatching(/metadata/)]);
  });

  it("serves the agent's card with every interface at the gateway and nothing of the agent's own address", async () => {
    const response = await fetch(`${gateway.url}/agents/helpdesk/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${tokens.alice}`, 'a2a-version': '1.0' } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const card = JSON.parse(text) as { supportedInterfaces: { url: string }[]; skills: { id: string }[] };
    expect(card.supportedInterfaces.length).toBeGreaterThan(0);
    for (const entry of card.supportedInterfaces) expect(entry.url.startsWith(`${gateway.url}/agents/helpdesk`)).toBe(true);
    expect(card.skills.map((skill) => skill.id)).toEqual(['answer', 'book']);
    expect(text).not.toContain(new URL(agent.url).host);
  });

  it("sends a message through the gateway with the official A2A client and gets the agent's answer", async () => {
    const client = await a2aClient(`${gateway.url}/agents/helpdesk`, tokens.alice);
    const answer = await client.sendMessage(ask('hello there'));
    expect('parts' in answer && said(answer.parts)).toBe('You said: hello there');
  });

  it("continues the caller's trace at the agent", async () => {
    const client = await a2aClient(`${gateway.url}/agents/helpdesk`, tokens.alice);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const answer = await client.sendMessage(ask('traced'), { serviceParameters: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    const received = 'parts' in answer ? (answer.metadata?.['traceparent'] as string | undefined) : undefined;
    expect(received?.split('-')[1]).toBe(traceId);
    // A span of the gateway's own between the caller's and the agent's.
    expect(received?.split('-')[2]).not.toBe('00f067aa0ba902b7');
  });

  it("streams a task's updates through the gateway as the agent sends them, over JSON-RPC and HTTP+JSON", async () => {
    for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
      const client = await a2aClient(`${gateway.url}/agents/helpdesk`, tokens.alice, binding);
      const events: StreamResponse[] = [];
      for await (const event of client.sendMessageStream(ask('a slow question'))) events.push(event);
      const kinds = events.map((event) => event.payload?.$case);
      expect(kinds[0]).toBe('task');
      expect(kinds.filter((kind) => kind === 'statusUpdate').length).toBeGreaterThanOrEqual(3);
      const artifact = events.find((event) => event.payload?.$case === 'artifactUpdate')?.payload;
      expect(artifact?.$case === 'artifactUpdate' && said(artifact.value.artifact?.parts)).toBe('Answer: a slow question');
      // The task stays at the agent: asked for through the gateway, it is there.
      const task = events[0].payload?.$case === 'task' ? events[0].payload.value : undefined;
      const fetched = await client.getTask({ tenant: '', id: task?.id ?? '', historyLength: undefined });
      expect(fetched.id).toBe(task?.id);
    }
  });

  it('lists tasks, resubscribes to a working task and cancels one through the gateway', async () => {
    const client = await a2aClient(`${gateway.url}/agents/helpdesk`, tokens.alice);
    const stream = client.sendMessageStream(ask('slow, then resubscribed'));
    const first = (await stream.next()).value as StreamResponse;
    await stream.return(undefined);
    const taskId = first.payload?.$case === 'task' ? first.payload.value.id : '';
    const resumed: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) resumed.push(event);
    expect(resumed.some((event) => event.payload?.$case === 'artifactUpdate')).toBe(true);
    const listed = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 50, pageToken: '', statusTimestampAfter: undefined });
    expect(listed.tasks.map((task) => task.id)).toContain(taskId);
    const other = client.sendMessageStream(ask('slow, then cancelled'));
    const started = (await other.next()).value as StreamResponse;
    const otherId = started.payload?.$case === 'task' ? started.payload.value.id : '';
    const cancelled = await client.cancelTask({ tenant: '', id: otherId, metadata: undefined });
    expect(cancelled.id).toBe(otherId);
    await other.return(undefined);
  });

  it('serves a v0.3 client: the v0.3 card names the gateway, and message/send answers', async () => {
    const response = await fetch(`${gateway.url}/agents/helpdesk/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${tokens.alice}`, 'a2a-version': '0.3' } });
    const card = (await response.json()) as { url: string; protocolVersion: string };
    expect(card.protocolVersion).toBe('0.3');
    expect(card.url.startsWith(`${gateway.url}/agents/helpdesk`)).toBe(true);
    const legacy = new LegacyJsonRpcTransport({ endpoint: card.url, fetchImpl: withToken(tokens.alice) });
    const answer = await legacy.sendMessage(ask('from v0.3'));
    expect('parts' in answer && said(answer.parts)).toBe('You said: from v0.3');
  });

  it('registers an agent that shows only a v0.3 card, and reaches it through the compat layer', async () => {
    // The demo agent's own card in its v0.3 shape, served where only that shape is found.
    const legacyCard = await (await fetch(`${agent.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } })).text();
    expect(JSON.parse(legacyCard)).toMatchObject({ protocolVersion: '0.3' });
    const cards = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(legacyCard));
    await new Promise<void>((resolve) => cards.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(cards.address() as AddressInfo).port}/legacy/agent-card.json`;
      const registered = await json<{ card: { interfaces: { protocol_version: string }[] } }>(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
        name: 'legacy-desk',
        url,
        project: 'alpha',
        auth: { type: 'static', headers: { authorization: `Bearer ${AGENT_TOKEN}` } },
      });
      expect(registered.status).toBe(201);
      expect(registered.body.card.interfaces.map((entry) => entry.protocol_version)).toContain('0.3');
      const client = await a2aClient(`${gateway.url}/agents/legacy-desk`, tokens.alice);
      const answer = await client.sendMessage(ask('to a v0.3 agent'));
      expect('parts' in answer && said(answer.parts)).toBe('You said: to a v0.3 agent');
    } finally {
      cards.close();
      await json(gateway.url, 'DELETE', '/api/v1/agents/legacy-desk', tokens.alice);
    }
  });

  it('answers 401 without credentials and 403 to a person without a role on the agent’s project, in A2A’s error form', async () => {
    const rpc = (token?: string) =>
      fetch(`${gateway.url}/agents/helpdesk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      });
    const anonymous = await rpc();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Bearer');
    expect(await anonymous.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600, data: { code: 'missing_credentials' } } });
    const outsider = await rpc(tokens.carol);
    expect(outsider.status).toBe(403);
    expect(await outsider.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { code: 'forbidden' } } });
    const rest = await fetch(`${gateway.url}/agents/helpdesk/rest/tasks/whatever`, { headers: { authorization: `Bearer ${tokens.carol}` } });
    expect(rest.status).toBe(403);
    expect(await rest.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    const card = await fetch(`${gateway.url}/agents/helpdesk/.well-known/agent-card.json`);
    expect(card.status).toBe(401);
  });

  it('passes push notification configs on, and refuses a push URL on a cloud metadata address', async () => {
    const client = await a2aClient(`${gateway.url}/agents/helpdesk`, tokens.alice);
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(ask('slow, with a hook'))) events.push(event);
    const taskId = events[0].payload?.$case === 'task' ? events[0].payload.value.id : '';
    const created = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: 'hook',
      taskId,
      url: 'https://hooks.example.com/a2a',
      token: 'hook-token',
      authentication: undefined,
    });
    expect(created.url).toBe('https://hooks.example.com/a2a');
    const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 10, pageToken: '' });
    expect(listed.configs.map((config) => config.id)).toEqual(['hook']);
    await expect(
      client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: 'some-task', url: 'http://169.254.169.254/latest', token: '', authentication: undefined }),
    ).rejects.toThrow(/metadata/);
  });

  it("offers the agent as a tool of a virtual server, answering the official MCP client's call", async () => {
    const server = await json<{ upstreams: unknown[] }>(gateway.url, 'POST', '/api/v1/servers', tokens.alice, {
      id: 'helpers',
      project: 'alpha',
      upstreams: [{ agent: 'helpdesk' }],
    });
    expect(server.status).toBe(201);
    expect(server.body.upstreams).toEqual([{ agent: 'helpdesk' }]);
    const mcp = new McpClient({ name: 'agents-spec', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/servers/helpers/mcp`), { fetch: withToken(tokens.alice) }));
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['helpdesk']);
      expect(tools[0].description).toContain('Answer questions');
      expect(tools[0].inputSchema.required).toEqual(['message']);
      const answer = await mcp.callTool({ name: 'helpdesk', arguments: { message: 'what is up?' } });
      expect(answer.content).toEqual([{ type: 'text', text: 'You said: what is up?' }]);
      // A long task: progress while it works, the final artifact as the result.
      const progress: string[] = [];
      const task = await mcp.callTool({ name: 'helpdesk', arguments: { message: 'a slow one' } }, undefined, { onprogress: (p) => progress.push(p.message ?? '') });
      expect(task.content).toEqual([{ type: 'text', text: 'Answer: a slow one' }]);
      expect(progress).toContain('Looking it up (2/3)');
    } finally {
      await mcp.close();
    }
  });

  it('refuses a virtual server of another project that would include the agent', async () => {
    const other = await json<{ error: { code: string } }>(gateway.url, 'POST', '/api/v1/servers', tokens.alice, {
      id: 'borrowed',
      project: 'beta',
      upstreams: [{ agent: 'helpdesk' }],
    });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('agent_in_other_project');
  });

  it("lets a gateway API key of the agent's project call it, and refuses one of another project", async () => {
    const alphaKey = await json<{ key: string }>(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'alpha', name: 'ci' });
    const betaKey = await json<{ key: string }>(gateway.url, 'POST', '/api/v1/keys', tokens.alice, { project: 'beta', name: 'other' });
    const client = await a2aClient(`${gateway.url}/agents/helpdesk`, alphaKey.body.key);
    const answer = await client.sendMessage(ask('from CI'));
    expect('parts' in answer && said(answer.parts)).toBe('You said: from CI');
    const refused = await fetch(`${gateway.url}/agents/helpdesk/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${betaKey.body.key}` } });
    expect(refused.status).toBe(403);
  });

  it('counts the calls in the metrics, per agent and as tool calls', async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    // The service label comes where prom-client puts it.
    const series = (name: string, labels: string) => new RegExp(`^${name}\\{[^}]*${labels.replace(/[/]/g, '\\/')}[^}]*\\} (\\d+)`, 'm').exec(metrics)?.[1];
    expect(Number(series('arbor_mcpgw_agent_calls_total', 'agent="helpdesk",method="SendMessage",outcome="ok"'))).toBeGreaterThanOrEqual(3);
    expect(Number(series('arbor_mcpgw_agent_stream_seconds_count', 'agent="helpdesk",method="SendStreamingMessage"'))).toBeGreaterThanOrEqual(3);
    expect(series('arbor_mcpgw_agent_calls_total', 'agent="helpdesk",method="CreateTaskPushNotificationConfig",outcome="refused"')).toBe('1');
    expect(series('arbor_mcpgw_calls_total', 'server="helpers",upstream="helpdesk",method="tools/call",tool="helpdesk",outcome="ok"')).toBe('2');
    expect(series('arbor_mcpgw_agent_up', 'agent="helpdesk"')).toBe('1');
  });

  it("shows an agent's calls by A2A method hour by hour, to its project's viewers as to its operators, and lets viewers change nothing", async () => {
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    const figures = await json<{ hours: { hour: string; method: string; calls: number; errors: number; mean_latency_ms: number | null }[] }>(
      gateway.url,
      'GET',
      '/api/v1/agents/helpdesk/calls',
      tokens.alice,
    );
    expect(figures.status).toBe(200);
    const sends = figures.body.hours.find((row) => row.method === 'SendMessage');
    expect(sends).toMatchObject({ hour, errors: 0 });
    expect(sends?.calls).toBeGreaterThanOrEqual(3);
    expect(sends?.mean_latency_ms).toBeGreaterThan(0);
    // The push config passed on, and the one on a metadata address the gateway refused.
    expect(figures.body.hours.find((row) => row.method === 'CreateTaskPushNotificationConfig')).toMatchObject({ calls: 2, errors: 1 });

    // carol views beta only: she reads beta's agent and its figures, and changes nothing.
    expect(
      (
        await json(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
          name: 'beta-desk',
          url: agent.url,
          project: 'beta',
          auth: { type: 'static', headers: { Authorization: `Bearer ${AGENT_TOKEN}` } },
        })
      ).status,
    ).toBe(201);
    try {
      const listed = await json<{ agents: { name: string }[] }>(gateway.url, 'GET', '/api/v1/agents', tokens.carol);
      expect(listed.body.agents.map((entry) => entry.name)).toEqual(['beta-desk']);
      expect((await json<{ hours: unknown[] }>(gateway.url, 'GET', '/api/v1/agents/beta-desk/calls', tokens.carol)).body.hours).toEqual([]);
      expect((await json(gateway.url, 'GET', '/api/v1/agents/helpdesk/calls', tokens.carol)).status).toBe(403);
      expect((await json(gateway.url, 'PATCH', '/api/v1/agents/beta-desk', tokens.carol, { description: 'mine now' })).status).toBe(403);
      expect((await json(gateway.url, 'DELETE', '/api/v1/agents/beta-desk', tokens.carol)).status).toBe(403);
    } finally {
      expect((await json(gateway.url, 'DELETE', '/api/v1/agents/beta-desk', tokens.alice)).status).toBe(204);
    }
  });

  it("counts agents, their calls and errors on the suite dashboard's card", async () => {
    const response = await fetch(`${gateway.url}/api/v1/dashboard/summary`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    const summary = (await response.json()) as { status: string; tiles: { label: string; value: number; breakdown?: { project: string; value: number }[] }[] };
    const tile = (label: string) => summary.tiles.find((candidate) => candidate.label === label);
    expect(tile('Agents')?.breakdown).toEqual([
      { project: 'alpha', value: 1 },
      { project: 'beta', value: 0 },
      { project: 'gamma', value: 0 },
    ]);
    expect(tile('Agent calls, last 24 h')?.value).toBeGreaterThanOrEqual(5);
    expect(tile('Agents down')?.value).toBe(0);
  });

  it('passes on a task that asks for input as the tool result, with the ids a follow-up call passes to finish it', async () => {
    const mcp = new McpClient({ name: 'agents-spec', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/servers/helpers/mcp`), { fetch: withToken(tokens.alice) }));
    try {
      const { tools } = await mcp.listTools();
      expect(Object.keys(tools[0].inputSchema.properties ?? {})).toEqual(['message', 'context_id', 'task_id']);
      const asked = await mcp.callTool({ name: 'helpdesk', arguments: { message: 'book a room for the team' } });
      const ids = (asked._meta as Record<string, { task_id: string; context_id: string; state: string }>)['arbor/a2a'];
      expect(ids).toMatchObject({ state: 'input_required', task_id: expect.any(String), context_id: expect.any(String) });
      expect(asked.isError).toBeUndefined();
      // The model reads the content: the agent's question, and the ids to answer it with.
      expect(asked.content).toEqual([
        { type: 'text', text: 'For which date?' },
        {
          type: 'text',
          text: `The agent waits for an answer: to give it, call this tool again with the answer as message, task_id "${ids.task_id}" and context_id "${ids.context_id}".`,
        },
      ]);
      // Asked with progress (the stream), the waiting task answers alike.
      const streamed = await mcp.callTool({ name: 'helpdesk', arguments: { message: 'book one more' } }, undefined, { onprogress: () => undefined });
      expect((streamed._meta as Record<string, { state: string }>)['arbor/a2a'].state).toBe('input_required');
      expect(streamed.content).toHaveLength(2);
      const booked = await mcp.callTool({ name: 'helpdesk', arguments: { message: 'Friday', task_id: ids.task_id, context_id: ids.context_id } });
      expect(booked.content).toEqual([{ type: 'text', text: 'Booked for Friday.' }]);
      expect(booked._meta).toEqual({ 'arbor/a2a': { task_id: ids.task_id, context_id: ids.context_id, state: 'completed' } });
      // The task is finished: answering it again is the agent's error, as a tool error the model reads.
      const again = await mcp.callTool({ name: 'helpdesk', arguments: { message: 'Monday', task_id: ids.task_id } });
      expect(again.isError).toBe(true);
      expect(JSON.stringify(again.content)).toMatch(/terminal state/);
      await expect(mcp.callTool({ name: 'helpdesk', arguments: { message: 'Monday', task_id: 42 } })).rejects.toThrow('The argument "task_id" must be a string');
    } finally {
      await mcp.close();
    }
  });

  it('shows an agent that stops answering as down when its card is read again, and the dashboard degraded', async () => {
    const flaky = await startDemoAgent();
    expect((await json(gateway.url, 'POST', '/api/v1/agents', tokens.alice, { name: 'flaky', url: flaky.url, project: 'alpha' })).status).toBe(201);
    await flaky.stop();
    const refreshed = await json<{ health: { state: string; last_error: string | null } }>(gateway.url, 'POST', '/api/v1/agents/flaky/refresh', tokens.alice);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.health).toEqual({ state: 'down', last_seen_at: expect.any(String), last_error: 'connection refused' });
    const response = await fetch(`${gateway.url}/api/v1/dashboard/summary`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    const summary = (await response.json()) as { status: string; tiles: { label: string; value: number }[] };
    expect(summary.status).toBe('degraded');
    expect(summary.tiles.find((candidate) => candidate.label === 'Agents down')?.value).toBe(1);
    expect((await json(gateway.url, 'DELETE', '/api/v1/agents/flaky', tokens.alice)).status).toBe(204);
  });

  it('keeps an agent a virtual server includes until it is removed from the server', async () => {
    const inUse = await json<{ error: { code: string } }>(gateway.url, 'DELETE', '/api/v1/agents/helpdesk', tokens.alice);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.code).toBe('agent_in_use');
  });

  it('moves an agent with its project when the control plane renames it, and stops serving it when the project is deleted', async () => {
    expect(
      (
        await json(gateway.url, 'POST', '/api/v1/agents', tokens.alice, {
          name: 'gamma-desk',
          url: agent.url,
          project: 'gamma',
          auth: { type: 'static', headers: { authorization: `Bearer ${AGENT_TOKEN}` } },
        })
      ).status,
    ).toBe(201);
    const projects = await json<{ projects: { id: string; slug: string }[] }>(controlPlane.url, 'GET', '/api/v1/projects', tokens.admin);
    const gamma = projects.body.projects.find((project) => project.slug === 'gamma');
    const sync = async (slugs: string[]) => {
      const response = await fetch(`${gateway.url}/admin/sync/control-plane/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await machineToken('control-plane-m2m')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ slugs }),
      });
      expect(response.status).toBeLessThan(300);
    };
    expect((await json(controlPlane.url, 'PATCH', `/api/v1/projects/${gamma?.id}`, tokens.admin, { slug: 'gamma-2' })).status).toBe(200);
    await sync(['gamma', 'gamma-2']);
    expect((await json<{ project: string }>(gateway.url, 'GET', '/api/v1/agents/gamma-desk', tokens.alice)).body.project).toBe('gamma-2');
    expect((await json(controlPlane.url, 'DELETE', `/api/v1/projects/${gamma?.id}`, tokens.admin)).status).toBe(204);
    await sync(['gamma-2']);
    expect((await json(gateway.url, 'GET', '/api/v1/agents/gamma-desk', tokens.alice)).status).toBe(404);
    const card = await fetch(`${gateway.url}/agents/gamma-desk/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    expect(card.status).toBe(404);
  });
});
