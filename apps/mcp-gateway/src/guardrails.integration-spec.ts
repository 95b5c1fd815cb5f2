// Guardrails on tool calls as an operator configures them (LiteLLM's list in MCPGW_CONFIG), in the
// running service: the official SDK client with a person's dev-idp token, the control plane (built)
// deciding access, an upstream whose echo tool shows what reached it. Test secrets are fake.
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
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, startTestControlPlane, TestControlPlane, TestDatabase, testIssuer } from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

const FAKE_AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

/** A stateless upstream whose `echo` answers the text it received. */
async function startEchoUpstream(): Promise<{ url: string; server: HttpServer }> {
  const server = createServer((req, res) => {
    const mcp = new McpServer({ name: 'echo-upstream', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Says it back', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('guardrails on tool calls (MCPGW_CONFIG, pre_mcp_call and post_mcp_call)', () => {
  let upstream: { url: string; server: HttpServer };
  let database: TestDatabase;
  let controlPlane: TestControlPlane;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  const clients: Client[] = [];

  beforeAll(async () => {
    upstream = await startEchoUpstream();
    controlPlane = await startTestControlPlane();
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-guardrails-')), 'config.yaml');
    writeFileSync(
      config,
      `upstreams:
  - { name: echo, url: "${upstream.url}" }
servers:
  - { id: support, project: alpha, upstreams: [{ upstream: echo }], guardrails: [pii, secrets] }
  - { id: plain, project: alpha, upstreams: [{ upstream: echo }] }
guardrails:
  - guardrail_name: pii
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_mcp_call
      patterns:
        - pattern_type: prebuilt
          pattern_name: email
          action: MASK
        - pattern_type: prebuilt
          pattern_name: us_ssn
          action: BLOCK
  - guardrail_name: secrets
    litellm_params:
      guardrail: litellm_content_filter
      mode: post_mcp_call
      patterns:
        - pattern_type: prebuilt
          pattern_name: aws_access_key
          action: BLOCK
`,
    );
    database = await createTestDatabase();
    gateway = await startService(mcpGatewayService, {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: '127.0.0.1:0',
      MCPGW_LOG: 'off',
      MCPGW_CONFIG: config,
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await gateway?.close();
    await controlPlane?.stop();
    upstream?.server.close();
    await database?.drop();
  });

  async function echo(server: string, text: string): Promise<{ text: string; isError: boolean }> {
    const client = new Client({ name: 'guardrails-spec', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/servers/${server}/mcp`), { requestInit: { headers: { authorization: `Bearer ${controlPlane.tokens.alice}` } } }),
    );
    clients.push(client);
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    return { text: (result.content as { text?: string }[]).map((block) => block.text ?? '').join(''), isError: result.isError === true };
  }

  it("masks an e-mail address in a tool argument: the upstream's echo shows the mask", async () => {
    expect(await echo('support', 'mail ada@example.com')).toEqual({ text: 'echo: mail [EMAIL_REDACTED]', isError: false });
  });

  it('refuses an SSN in a tool argument, naming guardrail and pattern, never the number', async () => {
    expect(await echo('support', 'SSN 123-45-6789')).toEqual({
      text: 'Tool call blocked by guardrail "pii": us_ssn pattern detected in its arguments; the tool was not called.',
      isError: true,
    });
  });

  it('blocks an AWS key in a tool result before it reaches the client', async () => {
    const blocked = await echo('support', `key ${FAKE_AWS_KEY}`);
    expect(blocked).toEqual({ text: 'Tool result blocked by guardrail "secrets": aws_access_key pattern detected in what the tool answered.', isError: true });
  });

  it('leaves a server without guardrails unaffected', async () => {
    expect(await echo('plain', `ada@example.com ${FAKE_AWS_KEY}`)).toEqual({ text: `echo: ada@example.com ${FAKE_AWS_KEY}`, isError: false });
  });

  it('counts what the guardrails did in /metrics, by guardrail and action', async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/arbor_mcpgw_guardrail_actions_total\{guardrail="pii",action="mask"[^}]*\} 1/);
    expect(metrics).toMatch(/arbor_mcpgw_guardrail_actions_total\{guardrail="pii",action="block"[^}]*\} 1/);
    expect(metrics).toMatch(/arbor_mcpgw_guardrail_actions_total\{guardrail="secrets",action="block"[^}]*\} 1/);
  });

  /** The admin API's try of a tool (the web UI's Tools page), as a person. */
  async function tryTool(server: string, tool: string, body: unknown, token = controlPlane.tokens.alice) {
    const response = await fetch(`${gateway.url}/api/v1/servers/${server}/tools/${tool}/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { content?: { text: string }[]; isError?: boolean; error?: { code: string; message: string } } };
  }

  it("gives the UI's try of a tool the same guardrails and access as an MCP client's call", async () => {
    const masked = await tryTool('support', 'echo', { arguments: { text: 'mail ada@example.com' } });
    expect(masked).toEqual({ status: 200, body: { content: [{ type: 'text', text: 'echo: mail [EMAIL_REDACTED]' }] } });
    const refused = await tryTool('support', 'echo', { arguments: { text: 'SSN 123-45-6789' } });
    expect(refused.status).toBe(200);
    expect(refused.body.isError).toBe(true);
    expect(refused.body.content?.[0]?.text).toContain('blocked by guardrail "pii"');

    const listed = await fetch(`${gateway.url}/api/v1/servers/support/tools`, { headers: { authorization: `Bearer ${controlPlane.tokens.alice}` } });
    expect(await listed.json()).toEqual({
      tools: [expect.objectContaining({ name: 'echo', description: 'Says it back', inputSchema: expect.objectContaining({ type: 'object', required: ['text'] }) })],
    });
    // A tool the caller does not have answers as tools/call answers it: a tool error naming it.
    expect(await tryTool('support', 'nope', {})).toEqual({
      status: 200,
      body: { content: [{ type: 'text', text: expect.stringContaining('Tool nope not found') }], isError: true },
    });
    expect((await tryTool('support', 'echo', { arguments: 'text' })).status).toBe(400);
    // bob has no role on alpha: refused as /servers/support/mcp refuses him.
    const forbidden = await tryTool('support', 'echo', { arguments: { text: 'hi' } }, controlPlane.tokens.bob);
    expect(forbidden).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    expect((await tryTool('nowhere', 'echo', {})).status).toBe(404);
  });
});
