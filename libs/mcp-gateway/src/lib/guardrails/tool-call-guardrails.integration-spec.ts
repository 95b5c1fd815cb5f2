// A virtual server's guardrails on its tool calls, through the official SDK clients of both eras,
// in both modes, over every transport: what the upstream's echo answers shows what reached it.
// Test secrets are fake (AWS's documentation key, a made-up SSN).
import { Client as DiscoverFirstClient, StreamableHTTPClientTransport as DiscoverFirstTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readGuardrails } from '@arbor/guardrails';
import { parseYamlConfig } from '@arbor/config';
import { ClientKind, connect, InMemoryServerRegistry, startGateway, TestGateway, textOf, upstreamDefinition } from '../transports/testing/test-gateway';
import { DiscoverFirstUpstream, SseUpstream, StreamableUpstream } from '../transports/testing/test-upstreams';
import { TOOL_CALL_GUARDRAILS } from './tool-call-scope';

const FAKE_AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const FAKE_SSN = '123-45-6789';

// As an operator writes it in MCPGW_CONFIG (LiteLLM's content filter, MCP modes).
const GUARDRAILS = `
guardrails:
  - guardrail_name: pii
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_mcp_call
      patterns:
        - { pattern_type: prebuilt, pattern_name: email, action: MASK }
        - { pattern_type: prebuilt, pattern_name: us_ssn, action: BLOCK }
  - guardrail_name: secrets
    litellm_params:
      guardrail: litellm_content_filter
      mode: post_mcp_call
      patterns:
        - { pattern_type: prebuilt, pattern_name: aws_access_key, action: BLOCK }
`;

function guardrails() {
  return readGuardrails(
    parseYamlConfig(GUARDRAILS, { variable: 'MCPGW_CONFIG', env: {} })['guardrails'],
    (path, message) => {
      throw new Error(`${path}: ${message}`);
    },
    TOOL_CALL_GUARDRAILS,
  );
}

type Call = (name: string, args: Record<string, unknown>) => Promise<{ text: string; isError: boolean; result: unknown }>;

describe.each([
  ['stateless', {}],
  ['stateful', { stateful: true, wsRelay: true }],
] as const)('guardrails on tool calls (%s gateway)', (_mode, options) => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  const east = new DiscoverFirstUpstream();
  let gateway: TestGateway;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    await Promise.all([north.start(), south.start(), east.start()]);
    const registry = new InMemoryServerRegistry(
      [upstreamDefinition('north', north, 'streamable-http'), upstreamDefinition('south', south, 'sse'), upstreamDefinition('east', east, 'streamable-http')],
      [
        // alice's servers (see GRANTS): two guarded, one not.
        { id: 'alpha', project: 'alpha', name: 'Guarded', selections: [{ upstream: 'north', tools: '*', resources: '*', prompts: '*' }], guardrails: ['pii', 'secrets'] },
        {
          id: 'hasty',
          project: 'alpha',
          name: 'Guarded, of both eras',
          selections: [
            { upstream: 'south', tools: ['echo'], resources: [], prompts: [] },
            { upstream: 'east', tools: ['echo'], resources: [], prompts: [] },
          ],
          guardrails: ['pii', 'secrets'],
        },
        { id: 'narrow', project: 'beta', name: 'Unguarded', selections: [{ upstream: 'north', tools: ['echo'], resources: [], prompts: [] }] },
      ],
    );
    gateway = await startGateway(registry, options, true, 0, guardrails());
  });

  afterAll(async () => {
    await Promise.all(closers.map((close) => close().catch(() => undefined)));
    await gateway.close();
    await Promise.all([north.stop(), south.stop(), east.stop()]);
  });

  async function handshakeCaller(path: string, kind: ClientKind = 'streamable-http', withProgress = false): Promise<Call> {
    const client: Client = await connect(gateway.url, path, 'alice', kind);
    closers.push(() => client.close());
    return async (name, args) => {
      // A progress handler sends the call the SDK server's way instead of the hot path.
      const result = await client.callTool({ name, arguments: args }, undefined, withProgress ? { onprogress: () => undefined } : {});
      return { text: textOf(result), isError: result.isError === true, result };
    };
  }

  async function discoverFirstCaller(path: string): Promise<Call> {
    const client = new DiscoverFirstClient({ name: 'v2-client', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new DiscoverFirstTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { authorization: 'Bearer alice' } } }));
    closers.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    return async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      return { text: textOf(result), isError: result.isError === true, result };
    };
  }

  const callers: [string, (path: string) => Promise<Call>][] = [
    ['the v1 SDK client (Streamable HTTP)', (path) => handshakeCaller(path)],
    ['the v1 SDK client with progress (the SDK server)', (path) => handshakeCaller(path, 'streamable-http', true)],
    ['the v2 SDK client in the 2026-07-28 era', discoverFirstCaller],
    ...('stateful' in options
      ? ([
          ['the v1 SDK client over HTTP+SSE', (path: string) => handshakeCaller(path.replace(/\/mcp$/, '/sse'), 'sse')],
          ['the v1 SDK client over WebSocket', (path: string) => handshakeCaller(path.replace(/\/mcp$/, '/ws'), 'websocket')],
        ] as [string, (path: string) => Promise<Call>][])
      : []),
  ];

  describe.each(callers)('through %s', (_client, open) => {
    it('masks an e-mail address in a tool argument before the upstream sees it', async () => {
      const call = await open('/servers/alpha/mcp');
      expect(await call('echo', { text: 'write to ada@example.com' })).toMatchObject({ text: 'north: write to [EMAIL_REDACTED]', isError: false });
    });

    it('refuses a call whose argument holds an SSN, naming guardrail and pattern, never the number', async () => {
      const call = await open('/servers/alpha/mcp');
      const refused = await call('echo', { text: `my SSN is ${FAKE_SSN}` });
      expect(refused).toMatchObject({ isError: true, text: 'Tool call blocked by guardrail "pii": us_ssn pattern detected in its arguments; the tool was not called.' });
      expect(JSON.stringify(refused.result)).not.toContain(FAKE_SSN);
    });

    it('blocks a tool result carrying an AWS key, so the key never reaches the client', async () => {
      const call = await open('/servers/alpha/mcp');
      const blocked = await call('echo', { text: `key ${FAKE_AWS_KEY}` });
      expect(blocked).toMatchObject({ isError: true, text: 'Tool result blocked by guardrail "secrets": aws_access_key pattern detected in what the tool answered.' });
      expect(JSON.stringify(blocked.result)).not.toContain(FAKE_AWS_KEY);
    });

    it('guards the tools of SSE upstreams and upstreams of the 2026-07-28 revision alike', async () => {
      const call = await open('/servers/hasty/mcp');
      expect(await call('south__echo', { text: 'ada@example.com' })).toMatchObject({ text: 'south echo: [EMAIL_REDACTED]', isError: false });
      expect(await call('east__echo', { text: 'ada@example.com' })).toMatchObject({ text: 'east: [EMAIL_REDACTED]', isError: false });
      expect(await call('east__echo', { text: FAKE_AWS_KEY })).toMatchObject({ isError: true });
    });

    it('leaves a server without guardrails unaffected', async () => {
      const call = await open('/servers/narrow/mcp');
      expect(await call('echo', { text: `ada@example.com ${FAKE_AWS_KEY}` })).toMatchObject({ text: `north: ada@example.com ${FAKE_AWS_KEY}`, isError: false });
    });
  });

  it('guards a tool on /mcp by the guardrails of the servers selecting its upstream', async () => {
    const call = await handshakeCaller('/mcp');
    expect(await call('north__echo', { text: 'ada@example.com' })).toMatchObject({ text: 'north: [EMAIL_REDACTED]' });
  });
});
