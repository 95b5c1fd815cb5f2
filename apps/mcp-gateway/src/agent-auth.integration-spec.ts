// Agents that see the person: an internal A2A agent (built with the official SDK) that accepts
// only identity-provider tokens issued for itself, reached through the gateway's token exchange
// (the credentials module that serves tool servers too) by two people, through the proxy with the
// official A2A client and as a tool of a virtual server with the official MCP client. The control
// plane (built) decides who may call; dev-idp tokens.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { decodeJwt } from 'jose';
import { type AgentCard, type Part, Role } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, type ExecutionEventBus, InMemoryTaskStore, type RequestContext, STATE_HEADERS_KEY } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RunningService, startService } from '@arbor/platform';
import {
  a2aClientWithToken,
  a2aTextMessage,
  createTestDatabase,
  freePort,
  type SeenRequest,
  startTestControlPlane,
  TestControlPlane,
  TestDatabase,
  testIssuer,
  tokensIssuedFor,
} from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

const AUDIENCE = 'arbor-agent';

const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const said = (parts: readonly Part[] | undefined) => (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

/** Answers who is asking: the person the (already verified) token names. */
class WhoamiExecutor implements AgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const headers = request.context.state.get(STATE_HEADERS_KEY) as Record<string, string | undefined> | undefined;
    const claims = decodeJwt(/^Bearer (.+)$/.exec(headers?.['authorization'] ?? '')?.[1] ?? '');
    const answer = `${String(claims['preferred_username'])} (${claims.sub})`;
    bus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: request.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: [textPart(answer)],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
    bus.finished();
  }

  /** Its answers are immediate: there is no task to cancel. */
  cancelTask(): Promise<void> {
    return Promise.resolve();
  }
}

/** An A2A agent whose card is public and whose calls need a token issued for it; every call it is sent is recorded. */
async function startInternalAgent(): Promise<{ url: string; seen: SeenRequest[]; close(): void }> {
  const tokens = tokensIssuedFor(AUDIENCE);
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const card = {
    name: 'Who is asking',
    description: 'Says who is asking.',
    supportedInterfaces: [{ url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'whoami', name: 'Who am I', description: 'Names the person asking.', tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  } as unknown as AgentCard;
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new WhoamiExecutor());
  app.use('/a2a', (req, res, next) => {
    void tokens.verify(req.headers.authorization).then((claims) => (claims ? next() : res.status(401).json({ error: { code: 401, status: 'UNAUTHENTICATED', message: 'no' } })));
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    seen: tokens.seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The official A2A client, given the card the gateway serves, every request carrying `token`. */
async function askThroughProxy(gatewayUrl: string, token: string): Promise<string> {
  const client = await a2aClientWithToken(`${gatewayUrl}/agents/whoami/.well-known/agent-card.json`, token);
  const answer = await client.sendMessage(a2aTextMessage('who am I?'));
  return 'parts' in answer ? said(answer.parts) : '';
}

async function askAsTool(gatewayUrl: string, token: string): Promise<{ text: string; isError: boolean }> {
  const client = new McpClient({ name: 'agent-auth-spec', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/servers/agents/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const result = await client.callTool({ name: 'whoami', arguments: { message: 'who am I?' } });
    return { text: (result.content as { text: string }[])[0]?.text ?? '', isError: result.isError === true };
  } finally {
    await client.close();
  }
}

describe('agents with token exchange', () => {
  let agent: Awaited<ReturnType<typeof startInternalAgent>>;
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  let subjects: Record<'alice' | 'bob', string>;

  beforeAll(async () => {
    agent = await startInternalAgent();
    controlPlane = await startTestControlPlane();
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer', 'mcp-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    subjects = { alice: decodeJwt(controlPlane.tokens.alice).sub as string, bob: decodeJwt(controlPlane.tokens.bob).sub as string };
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-agent-auth-')), 'config.yaml');
    writeFileSync(
      config,
      `agents:
  - name: whoami
    url: "${agent.url}"
    project: alpha
    auth: { type: token_exchange, audience: ${AUDIENCE} }
servers:
  - { id: agents, project: alpha, name: Agents, upstreams: [{ agent: whoami }] }
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
    agent?.close();
    await database?.drop();
  });

  it('answers with the calling person, for two people, through the proxy and as a tool', async () => {
    expect(await askThroughProxy(gateway.url, controlPlane.tokens.alice)).toBe(`alice (${subjects.alice})`);
    expect(await askThroughProxy(gateway.url, controlPlane.tokens.bob)).toBe(`bob (${subjects.bob})`);
    expect(await askAsTool(gateway.url, controlPlane.tokens.bob)).toEqual({ text: `bob (${subjects.bob})`, isError: false });
    expect(await askAsTool(gateway.url, controlPlane.tokens.alice)).toEqual({ text: `alice (${subjects.alice})`, isError: false });
    // Only tokens the identity provider issued for the agent reached it, each naming its person; never a caller's own.
    expect(agent.seen.length).toBe(4);
    expect(agent.seen.every((request) => request.status === 200 && request.claims?.aud === AUDIENCE && request.claims.azp === 'mcp-gateway')).toBe(true);
    expect(agent.seen.map((request) => request.claims?.sub)).toEqual([subjects.alice, subjects.bob, subjects.bob, subjects.alice]);
    expect(agent.seen.some((request) => request.token === controlPlane.tokens.alice || request.token === controlPlane.tokens.bob)).toBe(false);
  });

  it('answers an MCP API key, which has no person to exchange for, with a clear error, and sends the agent nothing', async () => {
    const created = await fetch(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${controlPlane.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'alpha', name: 'ci' }),
    });
    const { key } = (await created.json()) as { key: string };
    const before = agent.seen.length;
    const asTool = await askAsTool(gateway.url, key);
    expect(asTool.isError).toBe(true);
    expect(asTool.text).toMatch(/"whoami" acts for the person calling \(token exchange\), and this caller is no person/);
    await expect(askThroughProxy(gateway.url, key)).rejects.toThrow(/"whoami" acts for the person calling \(token exchange\)/);
    expect(agent.seen.length).toBe(before);
  });

  it('shows the agent’s auth in the admin API', async () => {
    const response = await fetch(`${gateway.url}/api/v1/agents/whoami`, { headers: { authorization: `Bearer ${controlPlane.tokens.alice}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { auth: unknown }).auth).toEqual({ type: 'token_exchange', audience: AUDIENCE, header_names: [] });
  });
});
