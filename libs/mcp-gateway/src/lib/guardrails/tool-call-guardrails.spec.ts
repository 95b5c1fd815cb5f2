import type { Result } from '@modelcontextprotocol/sdk/types.js';
import { readGuardrails } from '@arbor/guardrails';
import { MetricsRegistry } from '@arbor/observability';
import { ApiError } from '@arbor/platform';
import { Catalogue, type ToolCallParams } from '../catalogue/catalogue';
import { CatalogueView } from '../catalogue/catalogue-view';
import type { VirtualServerDefinition } from '../registry/server-registry';
import type { UpstreamOffer } from '../upstreams/upstream-pool';
import { ToolCallGuardrails } from './tool-call-guardrails';
import { TOOL_CALL_GUARDRAILS } from './tool-call-scope';

// The guardrails as a policy on the catalogue, with the upstream a function: what it is sent, and
// what the client gets back. Test secrets are fake (AWS's documentation key).

const FAKE_AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

function guardrails(registry = new MetricsRegistry()): ToolCallGuardrails {
  const definitions = readGuardrails(
    [
      {
        guardrail_name: 'pii',
        litellm_params: {
          guardrail: 'litellm_content_filter',
          mode: 'pre_mcp_call',
          patterns: [
            { pattern_type: 'prebuilt', pattern_name: 'email', action: 'MASK' },
            { pattern_type: 'prebuilt', pattern_name: 'us_ssn', action: 'BLOCK' },
          ],
          blocked_words: [{ keyword: 'project falcon', action: 'BLOCK' }],
        },
      },
      {
        guardrail_name: 'secrets',
        litellm_params: { guardrail: 'litellm_content_filter', mode: 'post_mcp_call', patterns: [{ pattern_type: 'prebuilt', pattern_name: 'aws_access_key', action: 'BLOCK' }] },
      },
      {
        guardrail_name: 'phones',
        litellm_params: {
          guardrail: 'litellm_content_filter',
          mode: 'post_mcp_call',
          default_on: true,
          patterns: [{ pattern_type: 'prebuilt', pattern_name: 'us_phone', action: 'MASK' }],
        },
      },
    ],
    (path, message) => {
      throw new Error(`${path}: ${message}`);
    },
    TOOL_CALL_GUARDRAILS,
  );
  return new ToolCallGuardrails(definitions, registry);
}

const OFFERS = new Map<string, UpstreamOffer>([
  ['north', { capabilities: { tools: {} }, tools: [{ name: 'echo', inputSchema: { type: 'object' } }], prompts: [], resources: [], resourceTemplates: [] }],
  ['south', { capabilities: { tools: {} }, tools: [{ name: 'echo', inputSchema: { type: 'object' } }], prompts: [], resources: [], resourceTemplates: [] }],
]);

const server = (id: string, upstream: string, named?: string[]): VirtualServerDefinition => ({
  id,
  project: 'alpha',
  name: id,
  selections: [{ upstream, tools: '*', resources: '*', prompts: '*' }],
  ...(named ? { guardrails: named } : {}),
});

function catalogueOf(servers: VirtualServerDefinition[], policy = guardrails()): Catalogue {
  const view = new CatalogueView(
    servers.flatMap((s) => s.selections),
    OFFERS,
    servers.length > 1 ? 'always' : 'on-collision',
    false,
  );
  return new Catalogue(view, 100, undefined, policy.forServers(servers));
}

/** Calls a tool through the catalogue; the upstream answers `answer(arguments)` and records what it was sent. */
async function call(catalogue: Catalogue, params: ToolCallParams, answer: (args: Record<string, unknown> | undefined) => Result = echo) {
  const sent: ToolCallParams[] = [];
  const result = await catalogue.callTool(params, async (_upstream, forwarded) => {
    sent.push(forwarded);
    return answer(forwarded.arguments);
  });
  return { sent, result };
}

const echo = (args: Record<string, unknown> | undefined): Result => ({ content: [{ type: 'text', text: JSON.stringify(args) }] });

describe('guardrails on tool calls (pre_mcp_call, post_mcp_call) in the catalogue', () => {
  it('masks every string inside the arguments, nested in objects and arrays, before the upstream sees them', async () => {
    const { sent } = await call(catalogueOf([server('support', 'north', ['pii'])]), {
      name: 'echo',
      arguments: { to: 'ada@example.com', count: 3, cc: [{ address: 'bob@example.org' }, 'plain'], deep: { deeper: ['x ada@example.com y'] } },
    });
    expect(sent[0]?.arguments).toEqual({ to: '[EMAIL_REDACTED]', count: 3, cc: [{ address: '[EMAIL_REDACTED]' }, 'plain'], deep: { deeper: ['x [EMAIL_REDACTED] y'] } });
    expect(sent[0]?.name).toBe('echo');
  });

  it('refuses a call whose arguments hold what a BLOCK rule finds with a tool error naming guardrail and pattern, never the text, and never calls the upstream', async () => {
    const { sent, result } = await call(catalogueOf([server('support', 'north', ['pii'])]), { name: 'echo', arguments: { nested: { ssn: '123-45-6789' } } });
    expect(sent).toEqual([]);
    expect(result['isError']).toBe(true);
    expect(JSON.stringify(result)).not.toContain('123-45-6789');
    expect(result['content']).toEqual([{ type: 'text', text: 'Tool call blocked by guardrail "pii": us_ssn pattern detected in its arguments; the tool was not called.' }]);
    expect(result._meta?.['arbor/guardrail_violation']).toEqual({ code: 'guardrail_violation', guardrail: 'pii', pattern: 'us_ssn', mode: 'pre_mcp_call' });
  });

  it('names no keyword when a blocked keyword refuses a call', async () => {
    const { result } = await call(catalogueOf([server('support', 'north', ['pii'])]), { name: 'echo', arguments: { text: 'About Project Falcon' } });
    expect(result['content']).toEqual([{ type: 'text', text: 'Tool call blocked by guardrail "pii": a blocked keyword was detected in its arguments; the tool was not called.' }]);
  });

  it('replaces a result with a secret by a tool error, in text blocks, embedded resources and structuredContent alike', async () => {
    const catalogue = catalogueOf([server('support', 'north', ['secrets'])]);
    const answers: Result[] = [
      { content: [{ type: 'text', text: `key: ${FAKE_AWS_KEY}` }] },
      { content: [{ type: 'resource', resource: { uri: 'file:///env', text: `AWS=${FAKE_AWS_KEY}` } }] },
      { content: [{ type: 'text', text: 'done' }], structuredContent: { env: [{ value: FAKE_AWS_KEY }] } },
    ];
    for (const answer of answers) {
      const { result } = await call(catalogue, { name: 'echo', arguments: {} }, () => answer);
      expect(result['isError']).toBe(true);
      expect(JSON.stringify(result)).not.toContain(FAKE_AWS_KEY);
      expect(result._meta?.['arbor/guardrail_violation']).toEqual({ code: 'guardrail_violation', guardrail: 'secrets', pattern: 'aws_access_key', mode: 'post_mcp_call' });
    }
  });

  it('applies default_on guardrails to every server, and masks results in place', async () => {
    const { result } = await call(catalogueOf([server('plain', 'north')]), { name: 'echo', arguments: { text: 'call 415-555-0100' } });
    expect(result).toEqual({ content: [{ type: 'text', text: '{"text":"call [US_PHONE_REDACTED]"}' }] });
  });

  it('on /mcp, guards a tool by the guardrails of every granted server selecting its upstream', async () => {
    const catalogue = catalogueOf([server('support', 'north', ['pii']), server('other', 'north'), server('open', 'south')]);
    expect((await call(catalogue, { name: 'north__echo', arguments: { text: 'ada@example.com' } })).sent[0]?.arguments).toEqual({ text: '[EMAIL_REDACTED]' });
    expect((await call(catalogue, { name: 'south__echo', arguments: { text: 'ada@example.com' } })).sent[0]?.arguments).toEqual({ text: 'ada@example.com' });
  });

  it('leaves a call of a server without guardrails as it is (the very objects)', async () => {
    const none = new ToolCallGuardrails([], new MetricsRegistry());
    expect(none.forServers([server('plain', 'north')])).toBeUndefined();
    const params = { name: 'echo', arguments: { text: 'ada@example.com' } };
    const answer: Result = { content: [{ type: 'text', text: FAKE_AWS_KEY }] };
    const { sent, result } = await call(catalogueOf([server('plain', 'north')], none), params, () => answer);
    expect(sent[0]?.arguments).toBe(params.arguments);
    expect(result).toBe(answer);
  });

  it('refuses every call of a server naming a guardrail this gateway does not configure, rather than pass it unchecked', async () => {
    const { sent, result } = await call(catalogueOf([server('support', 'north', ['gone'])]), { name: 'echo', arguments: {} });
    expect(sent).toEqual([]);
    expect(result['isError']).toBe(true);
    expect(result._meta?.['arbor/guardrail_violation']).toEqual({ code: 'guardrail_not_configured', guardrails: ['gone'] });
  });

  it('counts blocks and masks by guardrail in arbor_mcpgw_guardrail_actions_total', async () => {
    const registry = new MetricsRegistry();
    const catalogue = catalogueOf([server('support', 'north', ['pii', 'secrets'])], guardrails(registry));
    await call(catalogue, { name: 'echo', arguments: { a: 'ada@example.com', b: ['bob@example.org'] } });
    await call(catalogue, { name: 'echo', arguments: { a: '123-45-6789' } });
    await call(catalogue, { name: 'echo', arguments: { a: FAKE_AWS_KEY } });
    const text = await registry.metrics();
    expect(text).toContain('arbor_mcpgw_guardrail_actions_total{guardrail="pii",action="mask"} 1');
    expect(text).toContain('arbor_mcpgw_guardrail_actions_total{guardrail="pii",action="block"} 1');
    expect(text).toContain('arbor_mcpgw_guardrail_actions_total{guardrail="secrets",action="block"} 1');
  });

  it('refuses unknown names with 400 unknown_guardrail, listing the configured ones', () => {
    let refused: unknown;
    try {
      guardrails().check(['pii', 'nobody']);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    const error = refused as ApiError;
    expect([error.getStatus(), error.code, error.message]).toEqual([
      400,
      'unknown_guardrail',
      'No guardrail named "nobody" is configured; the gateway has "pii", "secrets", "phones".',
    ]);
  });
});
