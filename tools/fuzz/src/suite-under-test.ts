// The suite as an attacker meets it: the built control plane and both built gateways on real
// PostgreSQL, dev-idp tokens, the fake model providers and a small upstream MCP server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  BuiltService,
  createTestDatabase,
  startBuiltService,
  startFakeProviders,
  startTestControlPlane,
  TestControlPlane,
  TestDatabase,
  testIssuer,
} from '@arbor/testing';

export const MASTER_KEY = 'sk-arbor-fuzz-master';

export interface Gateway {
  service: BuiltService;
  database: TestDatabase;
}

export interface SuiteUnderTest {
  controlPlane: TestControlPlane;
  aiGateway: Gateway;
  mcpGateway: Gateway;
  /** A virtual key of project alpha, every alias. */
  virtualKey: string;
  /** Ids of things that exist, by path parameter name, per service. */
  ids: { controlPlane: Record<string, string[]>; aiGateway: Record<string, string[]>; mcpGateway: Record<string, string[]> };
  stop(): Promise<void>;
}

/** A stateless upstream with one tool, `echo`, one resource and one prompt. */
async function startUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const mcp = new McpServer({ name: 'fuzz-upstream', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Says it back', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'echoed' }] }));
    mcp.registerResource('note', 'note://one', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'a note' }] }));
    mcp.registerPrompt('greet', { description: 'Greets' }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

function writeFile(prefix: string, text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), prefix)), 'config.yaml');
  writeFileSync(file, text);
  return file;
}

async function json(url: string, method: string, route: string, authorization: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

export async function startSuite(): Promise<SuiteUnderTest> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const controlPlane = await startTestControlPlane(['alpha', 'beta']);
    stops.push(() => controlPlane.stop());
    // alice operates both gateways everywhere and uses alpha's MCP servers.
    await controlPlane.grant('alice', {
      workspace: ['ai-gateway', 'ai-gateway.operator', 'mcp-gateway', 'mcp-gateway.operator'],
      projects: { alpha: ['mcp-gateway.viewer'] },
    });
    const admin = `Bearer ${controlPlane.tokens.admin}`;
    const alpha = (await json(controlPlane.url, 'GET', '/api/v1/projects', admin)) as { projects?: { id: string; slug: string }[] };
    const projectIds = (alpha.projects ?? []).map((project) => project.id);
    const repository = await json(controlPlane.url, 'POST', `/api/v1/projects/${projectIds[0]}/repositories`, admin, {
      source_host: 'github.com',
      owner: 'arbor-fuzz',
      name: 'service',
      branch: 'main',
      installation_id: '4242',
    });
    const users = (await json(controlPlane.url, 'GET', '/api/v1/users', admin)) as { users?: { id: string }[] };

    const fake = await startFakeProviders();
    stops.push(() => fake.stop());
    const aiDatabase = await createTestDatabase('arbor_fuzz_ai');
    stops.push(() => aiDatabase.drop());
    const aiConfig = writeFile(
      'aigw-fuzz-',
      `model_list:
  - model_name: fuzz-chat
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
  - model_name: fuzz-embed
    litellm_params: { model: openai/text-embedding-3-small, api_base: ${fake.url}/v1, api_key: sk-upstream }
  - model_name: fuzz-claude
    litellm_params: { model: anthropic/claude-sonnet-4-5, api_base: ${fake.url}/anthropic, api_key: sk-upstream }
`,
    );
    const aiService = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', {
      AIGW_DATABASE_URL: aiDatabase.url,
      AIGW_CONFIG: aiConfig,
      AIGW_MASTER_KEY: MASTER_KEY,
      AIGW_LOG: 'off',
      AIGW_OIDC_ISSUER_URL: testIssuer(),
      AIGW_CONTROL_PLANE_URL: controlPlane.url,
      AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
      AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
    });
    stops.push(() => aiService.kill('SIGTERM'));
    const key = await json(aiService.url, 'POST', '/api/v1/keys', `Bearer ${MASTER_KEY}`, { project: 'alpha', metadata: { purpose: 'fuzz' } });

    const upstream = await startUpstream();
    stops.push(async () => upstream.server.close());
    const mcpDatabase = await createTestDatabase('arbor_fuzz_mcp');
    stops.push(() => mcpDatabase.drop());
    const mcpConfig = writeFile(
      'mcpgw-fuzz-',
      `upstreams:
  - { name: echo, url: "${upstream.url}" }
servers:
  - { id: tools, project: alpha, name: Tools, upstreams: [{ upstream: echo }] }
`,
    );
    const mcpService = await startBuiltService('mcp-gateway', 'MCPGW_LISTEN_ADDR', {
      MCPGW_DATABASE_URL: mcpDatabase.url,
      MCPGW_CONFIG: mcpConfig,
      MCPGW_LOG: 'off',
      MCPGW_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    });
    stops.push(() => mcpService.kill('SIGTERM'));
    const mcpKey = await json(mcpService.url, 'POST', '/api/v1/keys', `Bearer ${controlPlane.tokens.alice}`, { project: 'alpha', name: 'fuzz' });
    await json(mcpService.url, 'POST', '/api/v1/upstreams', `Bearer ${controlPlane.tokens.alice}`, { name: 'added', url: upstream.url });

    return {
      controlPlane,
      aiGateway: { service: aiService, database: aiDatabase },
      mcpGateway: { service: mcpService, database: mcpDatabase },
      virtualKey: key['key'] as string,
      ids: {
        controlPlane: {
          id: [...projectIds, ...(users.users ?? []).map((user) => user.id)],
          repoId: [repository['id'] as string],
        },
        aiGateway: { id: [key['id'] as string, 'fuzz-chat'] },
        mcpGateway: { id: ['tools', mcpKey['id'] as string], name: ['added', 'echo'] },
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
