import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@arbor/config';
import { loadRegistryConfigFile, parseRegistryConfig } from './registry-config';

const problemsOf = (text: string, env: NodeJS.ProcessEnv = {}): string[] => {
  try {
    parseRegistryConfig(text, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines();
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('MCPGW_CONFIG (upstreams and virtual servers)', () => {
  it('reads upstreams and servers, with defaults and header values from the environment', () => {
    const config = parseRegistryConfig(
      `
upstreams:
  - name: everything
    url: http://127.0.0.1:3001/mcp
    headers:
      Authorization: os.environ/EVERYTHING_TOKEN
      x-team: platform
  - name: legacy
    url: https://tools.example.com/sse
    transport: sse
    timeout: 2.5
    max_concurrency: 4
servers:
  - id: everything
    project: alpha
    description: The reference server
    upstreams:
      - upstream: everything
      - upstream: legacy
        tools: [echo, add]
        prompts: []
`,
      { EVERYTHING_TOKEN: 'Bearer t0ken' },
    );
    expect(config.upstreams).toEqual([
      {
        name: 'everything',
        url: 'http://127.0.0.1:3001/mcp',
        transport: 'streamable-http',
        headers: { authorization: 'Bearer t0ken', 'x-team': 'platform' },
        timeoutMs: 60_000,
        maxConcurrency: 10,
      },
      { name: 'legacy', url: 'https://tools.example.com/sse', transport: 'sse', headers: {}, timeoutMs: 2500, maxConcurrency: 4 },
    ]);
    expect(config.servers).toEqual([
      {
        id: 'everything',
        project: 'alpha',
        name: 'everything',
        description: 'The reference server',
        selections: [
          { upstream: 'everything', tools: '*', resources: '*', prompts: '*' },
          { upstream: 'legacy', tools: ['echo', 'add'], resources: '*', prompts: [] },
        ],
      },
    ]);
  });

  it('reads an upstream url from the environment, naming the variable when it is not set', () => {
    const text = 'upstreams:\n  - { name: everything, url: os.environ/EVERYTHING_URL }\n';
    expect(parseRegistryConfig(text, { EVERYTHING_URL: 'http://127.0.0.1:3999/mcp' }).upstreams[0]?.url).toBe('http://127.0.0.1:3999/mcp');
    expect(problemsOf(text)).toEqual(['MCPGW_CONFIG: upstreams[0].url: names the environment variable EVERYTHING_URL, which is not set']);
  });

  it('reads an empty file as no upstreams and no servers', () => {
    expect(parseRegistryConfig('')).toEqual({ upstreams: [], servers: [], agents: [], guardrails: [] });
  });

  it("reads each upstream's auth, a client secret from the environment", () => {
    const config = parseRegistryConfig(
      `upstreams:
  - { name: tools, url: http://tools.internal/mcp, auth: { type: token_exchange, audience: arbor-tool-server, scope: openid } }
  - { name: tickets, url: https://tickets.example.com/mcp, auth: { type: oauth, client_id: arbor, client_secret: os.environ/TICKETS_SECRET, client_credentials: true } }
  - { name: wiki, url: https://wiki.example.com/mcp, auth: { type: oauth } }
  - { name: plain, url: https://plain.example.com/mcp, auth: { type: static } }
`,
      { TICKETS_SECRET: 's3cret' },
    );
    expect(config.upstreams.map((upstream) => upstream.auth)).toEqual([
      { type: 'token_exchange', audience: 'arbor-tool-server', scope: 'openid' },
      { type: 'oauth', clientId: 'arbor', clientSecret: 's3cret', clientCredentials: true },
      { type: 'oauth' },
      undefined,
    ]);
  });

  it('names every bad auth field at once, never quoting a secret', () => {
    const problems = problemsOf(`
upstreams:
  - { name: a, url: http://a.example.com/mcp, auth: { type: kerberos } }
  - { name: b, url: http://b.example.com/mcp, auth: { type: token_exchange, scope: 7 } }
  - { name: c, url: http://c.example.com/mcp, auth: { type: oauth, client_secret: hunter2, client_credentials: 1, audience: x } }
  - { name: d, url: http://d.example.com/mcp, auth: { type: oauth, client_id: d, client_secret: os.environ/D_SECRET } }
  - { name: e, url: http://e.example.com/mcp, auth: token_exchange }
`);
    expect(problems).toEqual([
      'MCPGW_CONFIG: upstreams[0].auth.type: must be one of static, token_exchange, oauth',
      'MCPGW_CONFIG: upstreams[1].auth.audience: is required',
      'MCPGW_CONFIG: upstreams[1].auth.scope: must be a non-empty string of at most 2048 characters on one line',
      'MCPGW_CONFIG: upstreams[2].auth.audience: is not a setting of oauth auth (type, scope, client_id, client_secret, client_credentials)',
      'MCPGW_CONFIG: upstreams[2].auth.client_credentials: must be true or false',
      'MCPGW_CONFIG: upstreams[2].auth.client_secret: needs client_id',
      'MCPGW_CONFIG: upstreams[3].auth.client_secret: names the environment variable D_SECRET, which is not set',
      'MCPGW_CONFIG: upstreams[4].auth: must be a mapping with a type (static, token_exchange, oauth)',
    ]);
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('names every unknown key and bad value at once', () => {
    const problems = problemsOf(`
upstream: []
upstreams:
  - name: Bad Name
    url: ftp://example.com
    transport: websocket
    timeout: -1
    max_concurrency: 1.5
    retries: 3
  - name: creds
    url: http://user:secret@example.com/mcp
    headers:
      content-type: text/plain
      Upgrade: websocket
      "bad header": x
      x-key: os.environ/MISSING_KEY
  - name: twice
    url: http://a.example.com/mcp
  - name: twice
    url: http://b.example.com/mcp
servers:
  - id: s1
    project: Not A Slug
    upstreams:
      - upstream: twice
        tools: echo
        filters: []
      - upstream: twice
  - project: alpha
`);
    expect(problems).toEqual([
      'MCPGW_CONFIG: upstream: unknown key (did you mean upstreams?)',
      'MCPGW_CONFIG: upstreams[0].retries: unknown key (known: name, url, transport, headers, auth, timeout, max_concurrency)',
      expect.stringMatching(/^MCPGW_CONFIG: upstreams\[0\]\.name: "Bad Name" must be lower-case/),
      'MCPGW_CONFIG: upstreams[0].url: must be an http(s) URL',
      'MCPGW_CONFIG: upstreams[0].transport: must be one of streamable-http, sse, got "websocket"',
      'MCPGW_CONFIG: upstreams[0].timeout: must be greater than 0',
      'MCPGW_CONFIG: upstreams[0].max_concurrency: must be a whole number',
      'MCPGW_CONFIG: upstreams[1].url: must not carry a user name or password; put credentials in headers',
      'MCPGW_CONFIG: upstreams[1].headers.content-type: "content-type" is set by the gateway and cannot be configured',
      'MCPGW_CONFIG: upstreams[1].headers.Upgrade: "Upgrade" is set by the gateway and cannot be configured',
      'MCPGW_CONFIG: upstreams[1].headers.bad header: "bad header" is not a valid header name',
      'MCPGW_CONFIG: upstreams[1].headers.x-key: names the environment variable MISSING_KEY, which is not set',
      'MCPGW_CONFIG: upstreams[3].name: "twice" is used by an earlier upstream',
      expect.stringMatching(/^MCPGW_CONFIG: servers\[0\]\.project: "Not A Slug" must be a project slug/),
      'MCPGW_CONFIG: servers[0].upstreams[0].filters: unknown key (known: upstream, agent, tools, resources, prompts)',
      "MCPGW_CONFIG: servers[0].upstreams[0].tools: must be '*' or a list of names",
      'MCPGW_CONFIG: servers[0].upstreams[1].upstream: "twice" is selected twice; list everything it should expose in one entry',
      'MCPGW_CONFIG: servers[1].id: is required',
    ]);
  });

  it('never quotes a header value in a problem', () => {
    const problems = problemsOf(`
upstreams:
  - name: a
    url: http://a.example.com/mcp
    headers:
      authorization: "Bearer s3cr3t\\nx-injected: 1"
`);
    expect(problems).toEqual(['MCPGW_CONFIG: upstreams[0].headers.authorization: the value of "authorization" contains a line break or NUL']);
    expect(problems.join()).not.toContain('s3cr3t');
  });

  it('says when the file cannot be read or is not YAML', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcpgw-config-'));
    const file = path.join(dir, 'gateway.yaml');
    writeFileSync(file, 'upstreams: [');
    expect(() => loadRegistryConfigFile(file)).toThrow(/MCPGW_CONFIG: not valid YAML/);
    expect(() => loadRegistryConfigFile(path.join(dir, 'missing.yaml'))).toThrow(/MCPGW_CONFIG: cannot read/);
  });
});

describe("MCPGW_CONFIG's guardrails (LiteLLM's list, on tool calls)", () => {
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
      mode: [pre_mcp_call, post_mcp_call]
      default_on: true
      patterns:
        - { pattern_type: prebuilt, pattern_name: aws_access_key, action: BLOCK }
`;

  it('reads the guardrails and the ones each virtual server names', () => {
    const config = parseRegistryConfig(`${GUARDRAILS}
upstreams:
  - { name: tickets, url: http://127.0.0.1:3001/mcp }
servers:
  - { id: support, project: alpha, upstreams: [{ upstream: tickets }], guardrails: [pii, pii] }
  - { id: plain, project: alpha, upstreams: [{ upstream: tickets }] }
`);
    expect(config.guardrails.map((guardrail) => [guardrail.name, guardrail.modes, guardrail.defaultOn])).toEqual([
      ['pii', ['pre_mcp_call'], false],
      ['secrets', ['pre_mcp_call', 'post_mcp_call'], true],
    ]);
    expect(config.servers.map((server) => [server.id, server.guardrails])).toEqual([
      ['support', ['pii']],
      ['plain', undefined],
    ]);
  });

  it("refuses the modes of model calls, pointing to the AI gateway's config, and names every bad path at once", () => {
    const problems = problemsOf(`
guardrails:
  - guardrail_name: prompts
    litellm_params: { guardrail: litellm_content_filter, mode: pre_call }
  - guardrail_name: answers
    litellm_params: { guardrail: litellm_content_filter, mode: [post_mcp_call, during_call] }
  - guardrail_name: vendor
    litellm_params: { guardrail: lakera, mode: post_mcp_call }
  - guardrail_name: typo
    litellm_params: { guardrail: litellm_content_filter, mode: pre_mcp_cal, patterns: [{ pattern_type: prebuilt, pattern_name: emails }] }
servers:
  - { id: support, project: alpha, upstreams: [], guardrails: [answers, nobody] }
`);
    expect(problems).toEqual([
      expect.stringMatching(/^MCPGW_CONFIG: guardrails\[0\]\.litellm_params\.mode: refused: model calls are the AI gateway's: .*AIGW_CONFIG.*pre_mcp_call or post_mcp_call$/),
      expect.stringMatching(/^MCPGW_CONFIG: guardrails\[1\]\.litellm_params\.mode\[1\]: refused: model calls are the AI gateway's/),
      expect.stringMatching(/^MCPGW_CONFIG: guardrails\[2\]\.litellm_params\.guardrail: "lakera" is not a guardrail the gateway runs/),
      expect.stringMatching(/^MCPGW_CONFIG: guardrails\[3\]\.litellm_params\.mode: must be one of .*got "pre_mcp_cal"$/),
      expect.stringMatching(/^MCPGW_CONFIG: guardrails\[3\]\.litellm_params\.patterns\[0\]\.pattern_name: "emails" is not a prebuilt pattern/),
      'MCPGW_CONFIG: servers[0].guardrails[1]: "nobody" is not a guardrail of this file\'s guardrails: list (there are "prompts", "answers", "typo")',
    ]);
  });

  it('refuses a server naming a guardrail when the file has none', () => {
    expect(problemsOf('servers:\n  - { id: support, project: alpha, upstreams: [], guardrails: [pii] }\n')).toEqual([
      'MCPGW_CONFIG: servers[0].guardrails[0]: "pii" is not a guardrail of this file\'s guardrails: list (the file has none)',
    ]);
  });

  it("reads a server's tool, resource and prompt roles, per-tool rate limits and audit setting", () => {
    const [server] = parseRegistryConfig(`
servers:
  - id: repos
    project: alpha
    upstreams: [{ upstream: github }]
    tool_roles: { delete_repository: operator, github__list_issues: viewer }
    resource_roles: { "repo://{owner}/{name}/secrets": operator }
    prompt_roles: { incident_review: operator }
    tool_rate_limits: { search: { per_minute: 30 } }
    audit_payloads: true
`).servers;
    expect(server).toMatchObject({
      toolRoles: { delete_repository: 'operator', github__list_issues: 'viewer' },
      resourceRoles: { 'repo://{owner}/{name}/secrets': 'operator' },
      promptRoles: { incident_review: 'operator' },
      toolRateLimits: { search: { perMinute: 30 } },
      auditPayloads: true,
    });
  });

  it('leaves empty maps and audit_payloads: false out, as a server without them', () => {
    const [server] = parseRegistryConfig('servers:\n  - { id: repos, project: alpha, upstreams: [], tool_roles: {}, tool_rate_limits: {}, audit_payloads: false }\n').servers;
    expect(server).toEqual({ id: 'repos', project: 'alpha', name: 'repos', selections: [] });
  });

  it('names every bad role, rate limit and audit setting at its path', () => {
    expect(
      problemsOf(`
servers:
  - id: repos
    project: alpha
    upstreams: []
    tool_roles: { delete_repository: admin }
    resource_roles: [secrets]
    tool_rate_limits: { search: { per_minute: 0 }, list: 10 }
    audit_payloads: sometimes
`),
    ).toEqual([
      'MCPGW_CONFIG: servers[0].tool_roles: "delete_repository" must need "operator" or "viewer"',
      'MCPGW_CONFIG: servers[0].resource_roles: must be a mapping of names to "operator" or "viewer"',
      'MCPGW_CONFIG: servers[0].tool_rate_limits: "search".per_minute must be a whole number from 1 to 1000000',
      'MCPGW_CONFIG: servers[0].audit_payloads: must be true or false',
    ]);
  });
});

describe("MCPGW_CONFIG's agents (A2A)", () => {
  it('reads agents with their static auth from the environment, and servers including them as tools', () => {
    const config = parseRegistryConfig(
      `
agents:
  - name: helpdesk
    url: os.environ/HELPDESK_URL
    project: alpha
    description: The helpdesk
    auth:
      type: static
      headers:
        Authorization: os.environ/HELPDESK_TOKEN
  - name: open
    url: https://open.example.com
    project: beta
servers:
  - id: agents
    project: alpha
    upstreams:
      - agent: helpdesk
`,
      { HELPDESK_URL: 'http://127.0.0.1:3010', HELPDESK_TOKEN: 'Bearer s3cret' },
    );
    expect(config.agents).toEqual([
      { name: 'helpdesk', url: 'http://127.0.0.1:3010', project: 'alpha', description: 'The helpdesk', auth: { type: 'static', headers: { authorization: 'Bearer s3cret' } } },
      { name: 'open', url: 'https://open.example.com', project: 'beta', auth: { type: 'none' } },
    ]);
    expect(config.servers[0].selections).toEqual([{ upstream: 'helpdesk', kind: 'agent', tools: '*', resources: [], prompts: [] }]);
  });

  it("reads agents with the credentials module's per-caller auth, as upstreams take it", () => {
    const config = parseRegistryConfig(
      `
agents:
  - name: internal
    url: http://127.0.0.1:3011
    project: alpha
    auth: { type: token_exchange, audience: arbor-agent }
  - name: partner
    url: https://agents.partner.example
    project: alpha
    auth: { type: oauth, client_id: arbor, client_secret: os.environ/PARTNER_SECRET, client_credentials: true }
`,
      { PARTNER_SECRET: 's3cret' },
    );
    expect(config.agents.map((agent) => agent.auth)).toEqual([
      { type: 'token_exchange', audience: 'arbor-agent' },
      { type: 'oauth', clientId: 'arbor', clientSecret: 's3cret', clientCredentials: true },
    ]);
  });

  it('reads the demo config npm start gives the MCP gateway', () => {
    const config = loadRegistryConfigFile(path.join(__dirname, '../../../../../tools/dev/mcp-gateway.demo.yaml'), {
      MCP_EVERYTHING_URL: 'http://127.0.0.1:3001/mcp',
      MCP_EVERYTHING_2026_URL: 'http://127.0.0.1:3002/mcp',
      DEMO_AGENT_URL: 'http://127.0.0.1:3010',
      DEMO_AGENT_AUTHORIZATION: 'Bearer dev-demo-agent-token',
    });
    expect(config.agents.map((agent) => agent.name)).toEqual(['helpdesk']);
    expect(config.servers.find((server) => server.id === 'agents')?.selections).toEqual([{ upstream: 'helpdesk', kind: 'agent', tools: '*', resources: [], prompts: [] }]);
  });

  it('names every bad agent entry at once, never quoting a header value', () => {
    const problems = problemsOf(
      `
upstreams:
  - name: tickets
    url: http://127.0.0.1:1/mcp
agents:
  - name: tickets
    url: ftp://nowhere
    project: Alpha
  - name: keyed
    url: http://127.0.0.1:2
    project: alpha
    auth: { type: token_exchange, headers: { x-token: "secret-value" } }
  - name: bare
    url: http://127.0.0.1:3
    project: alpha
    auth: { type: static, headers: { host: "secret-value" } }
servers:
  - id: mixed
    project: alpha
    upstreams:
      - { agent: keyed, tools: [x] }
`,
    );
    expect(problems).toEqual([
      'MCPGW_CONFIG: agents[0].url: must be an http(s) URL',
      'MCPGW_CONFIG: agents[0].project: "Alpha" must be a project slug: 1 to 64 lower-case letters, digits and hyphens',
      'MCPGW_CONFIG: agents[1].auth.headers: is not a setting of token_exchange auth (type, audience, scope)',
      'MCPGW_CONFIG: agents[1].auth.audience: is required',
      'MCPGW_CONFIG: agents[2].auth.headers.host: "host" is set by the gateway and cannot be configured',
      'MCPGW_CONFIG: servers[0].upstreams[0]: an agent entry takes only "agent", not "tools"',
    ]);
    expect(problems.join('\n')).not.toContain('secret-value');
  });
});
