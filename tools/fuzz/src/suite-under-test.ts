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
  FakeProvidersProcess,
  startBuiltService,
  startFakeProviders,
  startTestControlPlane,
  TestControlPlane,
  TestDatabase,
  testIssuer,
} from '@arbor/testing';

export const MASTER_KEY = 'sk-arbor-fuzz-master';
/** Where on the fake providers each upstream lives: `/openai/*` passes through to OPENAI_BASE, `/anthropic/*` to ANTHROPIC_BASE. */
export const OPENAI_BASE = '/openai';
export const ANTHROPIC_BASE = '/anthropic';
export const COHERE_BASE = '/cohere';
/** The target of the pass_through_endpoints entry `/fuzz-pass` (with its subpaths). */
export const PASS_THROUGH_BASE = '/openai-compatible/v1';

export interface Gateway {
  service: BuiltService;
  database: TestDatabase;
  /** Starts the gateway again (same port, database, config) if it stopped; what it last wrote when it had to. */
  revive(): Promise<string | undefined>;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`)).ok;
  } catch {
    return false;
  }
}

async function startGateway(app: string, listenVariable: string, env: Record<string, string>, database: TestDatabase): Promise<Gateway> {
  const gateway: Gateway = {
    service: await startBuiltService(app, listenVariable, env),
    database,
    revive: async () => {
      if (await answers(gateway.service.url)) return undefined;
      const last = gateway.service.output().trim().split('\n').slice(-3).join(' | ').slice(-400);
      await gateway.service.kill('SIGKILL');
      gateway.service = await startBuiltService(app, listenVariable, env, Number(new URL(gateway.service.url).port));
      return last;
    },
  };
  return gateway;
}

export interface SuiteUnderTest {
  controlPlane: TestControlPlane;
  aiGateway: Gateway;
  mcpGateway: Gateway;
  /** The fake model providers, with the log of what reached them. */
  fake: FakeProvidersProcess;
  /** A virtual key of project alpha, every alias. */
  virtualKey: string;
  /** Ids of things that exist, by path parameter name, per service. */
  ids: { controlPlane: Record<string, string[]>; aiGateway: Record<string, string[]>; aiResources: Record<string, string[]>; mcpGateway: Record<string, string[]> };
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

/** The alias the AI gateway's stored resources are created on (the key may use every alias). */
export const RESOURCE_ALIAS = 'fuzz-chat';

/** One object of each kind alpha's key owns: a file, a vector store, an assistant and a thread. */
async function createResources(url: string, authorization: string): Promise<Record<'file' | 'vectorStore' | 'assistant' | 'thread', string>> {
  const upload = new FormData();
  upload.set('purpose', 'assistants');
  upload.set('file', new Blob(['{"a":1}\n']), 'notes.jsonl');
  const fileAnswer = await fetch(`${url}/v1/files`, { method: 'POST', headers: { authorization, 'x-arbor-model': RESOURCE_ALIAS }, body: upload });
  if (!fileAnswer.ok) throw new Error(`POST /v1/files answered ${fileAnswer.status}: ${await fileAnswer.text()}`);
  const file = ((await fileAnswer.json()) as { id: string }).id;
  const create = async (route: string, body: unknown) => {
    const answer = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { authorization, 'x-arbor-model': RESOURCE_ALIAS, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`POST ${route} answered ${answer.status}: ${await answer.text()}`);
    return ((await answer.json()) as { id: string }).id;
  };
  return {
    file,
    vectorStore: await create('/v1/vector_stores', { name: 'fuzz', file_ids: [file] }),
    assistant: await create('/v1/assistants', { model: RESOURCE_ALIAS, name: 'fuzz' }),
    thread: await create('/v1/threads', { messages: [{ role: 'user', content: 'hi' }] }),
  };
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
    // bob may look at alpha on both gateways and nothing more: the refusals of a caller short of rights.
    await controlPlane.grant('bob', { workspace: ['ai-gateway', 'mcp-gateway'], projects: { alpha: ['ai-gateway.viewer', 'mcp-gateway.viewer'] } });
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
      // Each provider below a path prefix of its own on the fake (OPENAI_BASE…), so that a request
      // that leaves it shows in the fake's request log.
      `model_list:
  - model_name: fuzz-chat
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}${OPENAI_BASE}/v1, api_key: sk-upstream }
  - model_name: fuzz-embed
    litellm_params: { model: openai/text-embedding-3-small, api_base: ${fake.url}${OPENAI_BASE}/v1, api_key: sk-upstream }
  - model_name: fuzz-image
    litellm_params: { model: openai/gpt-image-1, api_base: ${fake.url}${OPENAI_BASE}/v1, api_key: sk-upstream }
  - model_name: fuzz-transcribe
    litellm_params: { model: openai/whisper-1, api_base: ${fake.url}${OPENAI_BASE}/v1, api_key: sk-upstream }
  - model_name: fuzz-speech
    litellm_params: { model: openai/tts-1, api_base: ${fake.url}${OPENAI_BASE}/v1, api_key: sk-upstream }
  - model_name: fuzz-moderation
    litellm_params: { model: openai/omni-moderation-latest, api_base: ${fake.url}${OPENAI_BASE}/v1, api_key: sk-upstream }
  - model_name: fuzz-claude
    litellm_params: { model: anthropic/claude-sonnet-4-5, api_base: ${fake.url}${ANTHROPIC_BASE}, api_key: sk-upstream }
  - model_name: fuzz-rerank
    litellm_params: { model: cohere/rerank-v3.5, api_base: ${fake.url}${COHERE_BASE}, api_key: sk-upstream }
general_settings:
  pass_through_endpoints:
    - { path: /fuzz-pass, target: "${fake.url}${PASS_THROUGH_BASE}", include_subpath: true, headers: { Authorization: "Bearer sk-upstream" } }
`,
    );
    const aiGateway = await startGateway(
      'ai-gateway',
      'AIGW_LISTEN_ADDR',
      {
        AIGW_DATABASE_URL: aiDatabase.url,
        AIGW_CONFIG: aiConfig,
        AIGW_MASTER_KEY: MASTER_KEY,
        AIGW_LOG: 'off',
        AIGW_OIDC_ISSUER_URL: testIssuer(),
        AIGW_CONTROL_PLANE_URL: controlPlane.url,
        AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
        AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
      },
      aiDatabase,
    );
    stops.push(() => aiGateway.service.kill('SIGTERM'));
    const aiService = aiGateway.service;
    const key = await json(aiService.url, 'POST', '/api/v1/keys', `Bearer ${MASTER_KEY}`, { project: 'alpha', metadata: { purpose: 'fuzz' } });
    // The admin API's fuzz may block, rotate or limit the keys it is told of: never the one the model calls use.
    const adminTarget = await json(aiService.url, 'POST', '/api/v1/keys', `Bearer ${MASTER_KEY}`, { project: 'alpha', metadata: { purpose: 'fuzz-admin' } });
    const resources = await createResources(aiService.url, `Bearer ${key['key'] as string}`);

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
    const mcpGateway = await startGateway(
      'mcp-gateway',
      'MCPGW_LISTEN_ADDR',
      {
        MCPGW_DATABASE_URL: mcpDatabase.url,
        MCPGW_CONFIG: mcpConfig,
        MCPGW_LOG: 'off',
        MCPGW_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
        MCPGW_OIDC_ISSUER_URL: testIssuer(),
        MCPGW_CONTROL_PLANE_URL: controlPlane.url,
        MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
        MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
        // The relay's routes are registered, and so fuzzed, only when it is on.
        MCPGW_WS_RELAY_ENABLED: 'true',
      },
      mcpDatabase,
    );
    stops.push(() => mcpGateway.service.kill('SIGTERM'));
    const mcpService = mcpGateway.service;
    const mcpKey = await json(mcpService.url, 'POST', '/api/v1/keys', `Bearer ${controlPlane.tokens.alice}`, { project: 'alpha', name: 'fuzz' });
    await json(mcpService.url, 'POST', '/api/v1/upstreams', `Bearer ${controlPlane.tokens.alice}`, { name: 'added', url: upstream.url });

    return {
      controlPlane,
      aiGateway,
      mcpGateway,
      fake,
      virtualKey: key['key'] as string,
      ids: {
        controlPlane: {
          id: [...projectIds, ...(users.users ?? []).map((user) => user.id)],
          repoId: [repository['id'] as string],
        },
        aiGateway: { id: [adminTarget['id'] as string, 'fuzz-chat'] },
        aiResources: { id: Object.values(resources), file_id: [resources.file] },
        mcpGateway: { id: ['tools', mcpKey['id'] as string], name: ['added', 'echo'] },
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
