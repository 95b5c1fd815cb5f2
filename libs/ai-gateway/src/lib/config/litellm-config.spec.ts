// A LiteLLM user's config.yaml as LiteLLM reads it: the rules of docs/ai-gateway.md's "Coming from LiteLLM".
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '@arbor/config';
import { parseGatewayConfig } from './gateway-config';
import { KnownModels } from './known-models';
import { SETTING_RULES } from './litellm-settings';

const problemsOf = (text: string, env: NodeJS.ProcessEnv = {}): string[] => {
  try {
    parseGatewayConfig(text, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines();
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('AIGW_CONFIG read as LiteLLM reads it', () => {
  it('resolves a model without provider prefix by the known-model map, saying so, and reads YAML 1.1 numbers and rpm/tpm beside litellm_params', () => {
    const config = parseGatewayConfig(`
model_list:
  - model_name: gpt-3.5-turbo
    litellm_params:
      model: gpt-5-mini
      tpm: 80_000
  - model_name: claude
    litellm_params: { model: claude-sonnet-4-5-20250929 }
    tpm: 20000
    rpm: 3
`);
    expect(config.deployments.map(({ alias, provider, model, rpm, tpm }) => ({ alias, provider, model, rpm, tpm }))).toEqual([
      { alias: 'gpt-3.5-turbo', provider: 'openai', model: 'gpt-5-mini', rpm: undefined, tpm: 80000 },
      { alias: 'claude', provider: 'anthropic', model: 'claude-sonnet-4-5-20250929', rpm: 3, tpm: 20000 },
    ]);
    expect(config.notices).toEqual([
      'model_list[0] (gpt-3.5-turbo): model "gpt-5-mini" resolved to openai/gpt-5-mini (a known model)',
      'model_list[1] (claude): model "claude-sonnet-4-5-20250929" resolved to anthropic/claude-sonnet-4-5-20250929 (a known model)',
    ]);
  });

  it("resolves by AIGW_PRICE_MAP's litellm_provider too, as LiteLLM resolves by its model map (openrouter names included)", () => {
    const known = new KnownModels(
      new Map([
        ['openrouter/mistralai/mistral-7b-instruct', 'openrouter'],
        ['my-house-model', 'text-completion-openai'],
      ]),
    );
    const config = parseGatewayConfig(
      'model_list:\n  - model_name: m\n    litellm_params: { model: mistralai/mistral-7b-instruct }\n  - model_name: h\n    litellm_params: { model: my-house-model }\n',
      {},
      known,
    );
    expect(config.deployments.map((d) => `${d.provider}/${d.model}`)).toEqual(['openrouter/mistralai/mistral-7b-instruct', 'openai/my-house-model']);
  });

  it("resolves names no provider folder lists from the maintained catalogue, and keeps the folders' own first", () => {
    const config = parseGatewayConfig(
      'model_list:\n  - model_name: m\n    litellm_params: { model: mistralai/mistral-7b-instruct }\n  - model_name: g\n    litellm_params: { model: gpt-4o-mini }\n  - model_name: d\n    litellm_params: { model: deepseek-reasoner }\n',
      {},
      new KnownModels(),
    );
    expect(config.deployments.map((d) => `${d.provider}/${d.model}`)).toEqual(['openrouter/mistralai/mistral-7b-instruct', 'openai/gpt-4o-mini', 'deepseek/deepseek-reasoner']);
  });

  it("reads the litellm_provider names each provider folder declares, and LiteLLM's first-party order for names several know", () => {
    const known = new KnownModels(
      new Map([
        ['gem-x', 'vertex_ai-language-models'],
        ['cmd-x', 'cohere_chat'],
        ['conv-x', 'bedrock_converse'],
        ['odd-x', 'no_such_provider'],
      ]),
    );
    expect(['gem-x', 'cmd-x', 'conv-x', 'odd-x'].map((model) => known.providerOf(model))).toEqual(['vertex_ai', 'cohere', 'bedrock', undefined]);
    // Azure OpenAI lists OpenAI's prices too: the name is OpenAI's, as LiteLLM resolves it.
    expect(new KnownModels().providerOf('gpt-4o')).toBe('openai');
    // Gemini's models are Vertex AI's too: LiteLLM ranks vertex_ai, not gemini.
    expect(new KnownModels().providerOf('gemini-2.5-flash')).toBe('vertex_ai');
  });

  it('reads timeout, stream_timeout, max_retries, organization and default request parameters wherever LiteLLM takes them', () => {
    const [deployment] = parseGatewayConfig(`
model_list:
  - model_name: tuned
    litellm_params:
      model: openai/gpt-4o
      organization: org-acme
      timeout: 5
      stream_timeout: 0.5
      max_retries: 4
      temperature: 0.1
      max_tokens: 20
      input_cost_per_token: 0.000001
    model_info: { mode: chat, base_model: gpt-4o }
`).deployments;
    expect(deployment).toMatchObject({
      timeoutMs: 5000,
      streamTimeoutMs: 500,
      maxRetries: 4,
      params: { organization: 'org-acme' },
      defaults: { temperature: 0.1, max_tokens: 20 },
      modelInfo: { mode: 'chat', base_model: 'gpt-4o', input_cost_per_token: 0.000001 },
    });
  });

  it("reads wildcard aliases: a provider's every model under its own name, and a catch-all", () => {
    const config = parseGatewayConfig(`
model_list:
  - model_name: anthropic/*
    litellm_params: { model: anthropic/*, api_key: k }
  - model_name: "*"
    litellm_params: { model: "*" }
`);
    expect(config.deployments.map(({ alias, provider, model, wildcard }) => ({ alias, provider, model, template: wildcard?.template }))).toEqual([
      { alias: 'anthropic/*', provider: 'anthropic', model: '*', template: 'anthropic/*' },
      { alias: '*', provider: '', model: '*', template: '*' },
    ]);
    expect(problemsOf('model_list:\n  - model_name: plain\n    litellm_params: { model: anthropic/* }\n')).toEqual([
      'AIGW_CONFIG: model_list[0].litellm_params.model: "anthropic/*" has a * but model_name "plain" has none to fill it',
    ]);
  });

  it('sorts settings into served, warned (logged at start) and refused (one line with the reason), and suggests the key a typo meant', () => {
    const config = parseGatewayConfig(
      `
model_list: []
litellm_settings:
  cache: true
  cache_params: { type: redis, host: os.environ/TEST_REDIS_HOST, port: 6379, ttl: 600, namespace: team-a, supported_call_types: [acompletion] }
  include_cost_in_streaming_usage: true
  callbacks: ["otel"]
  success_callback: ["prometheus"]
general_settings:
  use_redis_transaction_buffer: true
`,
      { TEST_REDIS_HOST: 'redis.internal' },
    );
    expect(config.litellm.cache).toMatchObject({
      type: 'redis',
      redis: { host: 'redis.internal', port: 6379 },
      ttlSeconds: 600,
      namespace: 'team-a',
      callTypes: new Set(['acompletion']),
    });
    expect(config.warnings).toEqual([
      expect.stringMatching(
        /^litellm_settings\.callbacks is accepted and ignored: logging integrations: metrics are always served at \/metrics, traces with OTEL_EXPORTER_OTLP_ENDPOINT/,
      ),
      expect.stringMatching(/^litellm_settings\.success_callback is accepted and ignored/),
      'general_settings.use_redis_transaction_buffer is accepted and ignored: spend is written behind anyway (at most every second)',
    ]);
    expect(parseGatewayConfig('litellm_settings: { cache: True }', {}).litellm.cache).toMatchObject({ type: 'local' });
    expect(parseGatewayConfig('litellm_settings: { cache: false, cache_params: { type: redis } }').litellm.cache).toBeUndefined();

    expect(
      problemsOf(`
general_settings:
  custom_auth: custom_auth_basic.user_api_key_auth
litellm_settings:
  callbacks: [custom_callbacks.proxy_handler_instance]
  guardrails: []
  cache_parms: { type: local }
`),
    ).toEqual([
      "AIGW_CONFIG: litellm_settings.guardrails: refused: LiteLLM's older form of guardrails, whose hooks the gateway cannot run: write them as the top-level guardrails list",
      'AIGW_CONFIG: litellm_settings.cache_parms: unknown key (did you mean cache_params?)',
      'AIGW_CONFIG: general_settings.custom_auth: refused: a Python hook the gateway cannot run; serving without it would let in callers it refuses',
      'AIGW_CONFIG: litellm_settings.callbacks: refused: "custom_callbacks.proxy_handler_instance" is a Python callback the gateway cannot run, and it may check or change calls',
    ]);
  });

  it('reads pass_through_endpoints, header values from the environment, never quoting one in a problem', () => {
    const config = parseGatewayConfig(
      `
general_settings:
  pass_through_endpoints:
    - path: "/azure-config-passthrough"
      target: os.environ/TEST_TARGET
      include_subpath: true
      headers: { Authorization: os.environ/TEST_TARGET_KEY, x-team: platform }
`,
      { TEST_TARGET: 'http://127.0.0.1:9/azure', TEST_TARGET_KEY: 'Bearer s3cret' },
    );
    expect(config.litellm.passThroughEndpoints).toEqual([
      {
        path: '/azure-config-passthrough',
        target: 'http://127.0.0.1:9/azure',
        headers: { authorization: 'Bearer s3cret', 'x-team': 'platform' },
        includeSubpath: true,
        forwardHeaders: false,
        costPerRequest: 0,
      },
    ]);
    const lines = problemsOf(
      'general_settings:\n  pass_through_endpoints:\n    - { path: nope, target: "ftp://x", headers: { Authorization: os.environ/UNSET_KEY }, include_subpaths: true }\n',
    );
    expect(lines).toEqual([
      'AIGW_CONFIG: general_settings.pass_through_endpoints[0].include_subpaths: unknown key (did you mean include_subpath?)',
      'AIGW_CONFIG: general_settings.pass_through_endpoints[0].path: must be a URL path starting with /, got "nope"',
      'AIGW_CONFIG: general_settings.pass_through_endpoints[0].target: must be an http(s) URL',
      'AIGW_CONFIG: general_settings.pass_through_endpoints[0].headers.Authorization: names the environment variable UNSET_KEY, which is not set',
    ]);
  });

  it('reads pass_through_allowed_paths and stops the start on an entry that is not a plain path below a vendor pass-through', () => {
    const config = parseGatewayConfig(
      'general_settings:\n  pass_through_allowed_paths:\n    - { path: /openai/v1/organization/usage/**, methods: [get] }\n    - { path: /anthropic/v1/organizations/*/usage }\n',
    );
    expect(config.litellm.passThroughAllowedPaths).toEqual([
      { segments: ['openai', 'v1', 'organization', 'usage', '**'], methods: new Set(['GET']) },
      { segments: ['anthropic', 'v1', 'organizations', '*', 'usage'] },
    ]);
    const lines = problemsOf(`general_settings:
  pass_through_allowed_paths:
    - { path: /v1/organization/users }
    - { path: /openai/v1/../admin }
    - { path: /openai/**/users, method: [GET] }
    - { path: /openai/v1/files, methods: [STEAL] }
    - /openai/v1/models
`);
    expect(lines).toEqual([
      'AIGW_CONFIG: general_settings.pass_through_allowed_paths[0].path: must be a path below /openai/ or /anthropic/, got "/v1/organization/users"',
      'AIGW_CONFIG: general_settings.pass_through_allowed_paths[1].path: segment 3 ("..") must be a plain path segment, * for any one segment, or a last ** for any rest',
      'AIGW_CONFIG: general_settings.pass_through_allowed_paths[2].method: unknown key (did you mean methods?)',
      'AIGW_CONFIG: general_settings.pass_through_allowed_paths[2].path: segment 2 ("**") must be a plain path segment, * for any one segment, or a last ** for any rest',
      'AIGW_CONFIG: general_settings.pass_through_allowed_paths[3].methods: must be a non-empty list of GET, POST, PUT, PATCH, DELETE, HEAD',
      'AIGW_CONFIG: general_settings.pass_through_allowed_paths[4]: must be a mapping',
    ]);
  });

  it('applies environment_variables before os.environ/ references are read', () => {
    const env: NodeJS.ProcessEnv = {};
    const config = parseGatewayConfig(
      'environment_variables: { TEST_KEY_FROM_FILE: sk-file }\nmodel_list:\n  - model_name: a\n    litellm_params: { model: openai/gpt-4o, api_key: os.environ/TEST_KEY_FROM_FILE }\n',
      env,
    );
    expect(config.deployments[0]?.apiKey).toBe('sk-file');
    expect(env['TEST_KEY_FROM_FILE']).toBe('sk-file');
  });

  describe('router_settings, as LiteLLM documents them', () => {
    const twoGroups = `
model_list:
  - model_name: chat
    litellm_params: { model: openai/gpt-4o, temperature: 0.2 }
  - model_name: big
    litellm_params: { model: openai/gpt-4.1, stream_timeout: 9, max_parallel_requests: 2, num_retries: 3 }
`;

    it("reads LiteLLM's Redis settings as one URL: redis_host, redis_port, redis_password (unset is none), redis_db, or redis_url", () => {
      const urlOf = (router: string, env: NodeJS.ProcessEnv = {}) => parseGatewayConfig(`${twoGroups}router_settings: ${router}\n`, env).router.redisUrl;
      expect(
        urlOf('{ redis_host: os.environ/REDIS_HOST, redis_port: os.environ/REDIS_PORT, redis_password: os.environ/REDIS_PASSWORD }', {
          REDIS_HOST: 'cache.internal',
          REDIS_PORT: '6380',
        }),
      ).toBe('redis://cache.internal:6380');
      expect(urlOf('{ redis_host: cache.internal, redis_password: "p@ss word", redis_db: 2 }')).toBe('redis://:p%40ss%20word@cache.internal:6379/2');
      expect(urlOf('{ redis_url: "rediss://cache.internal:6390" }')).toBe('rediss://cache.internal:6390');
      expect(urlOf('{}')).toBeUndefined();
      expect(problemsOf(`${twoGroups}router_settings: { redis_port: 6379, redis_url: "http://cache" }\n`)).toEqual([
        'AIGW_CONFIG: router_settings.redis_url: must be a redis:// or rediss:// URL',
      ]);
      expect(problemsOf(`${twoGroups}router_settings: { redis_port: 6379 }\n`)).toEqual(['AIGW_CONFIG: router_settings.redis_port: is set but redis_host is not']);
    });

    it("reads model_group_alias in both of LiteLLM's forms, and names a group model_list does not have", () => {
      const { router } = parseGatewayConfig(`${twoGroups}router_settings:\n  model_group_alias: { my-chat: chat, Big: { model: big, hidden: true } }\n`);
      expect(router.modelGroupAliases).toEqual({ 'my-chat': { group: 'chat', hidden: false }, Big: { group: 'big', hidden: true } });
      expect(problemsOf(`${twoGroups}router_settings:\n  model_group_alias: { a: nowhere, b: { model: chat, hiden: true } }\n`)).toEqual([
        'AIGW_CONFIG: router_settings.model_group_alias.a: "nowhere" is not a model_name of model_list',
        'AIGW_CONFIG: router_settings.model_group_alias.b.hiden: unknown key (did you mean hidden?)',
      ]);
    });

    it('reads every routing strategy LiteLLM documents, usage-based-routing as its v2', () => {
      for (const strategy of ['simple-shuffle', 'least-busy', 'usage-based-routing-v2', 'latency-based-routing', 'cost-based-routing']) {
        expect(parseGatewayConfig(`${twoGroups}router_settings: { routing_strategy: ${strategy} }\n`).router.routingStrategy).toBe(strategy);
      }
      expect(parseGatewayConfig(`${twoGroups}router_settings: { routing_strategy: usage-based-routing }\n`).router.routingStrategy).toBe('usage-based-routing-v2');
    });

    it("gives every deployment the router's default_litellm_params under its own, stream_timeout and default_max_parallel_requests where it has none", () => {
      const { deployments, router } = parseGatewayConfig(
        `${twoGroups}router_settings: { default_litellm_params: { temperature: 0.7, max_tokens: 100 }, stream_timeout: 30, default_max_parallel_requests: 8, enable_pre_call_checks: true }\n`,
      );
      expect(
        deployments.map(({ alias, defaults, streamTimeoutMs, maxParallelRequests, maxRetries }) => ({ alias, defaults, streamTimeoutMs, maxParallelRequests, maxRetries })),
      ).toEqual([
        { alias: 'chat', defaults: { temperature: 0.2, max_tokens: 100 }, streamTimeoutMs: 30_000, maxParallelRequests: 8, maxRetries: undefined },
        { alias: 'big', defaults: { temperature: 0.7, max_tokens: 100 }, streamTimeoutMs: 9_000, maxParallelRequests: 2, maxRetries: 3 },
      ]);
      expect(router.preCallChecks).toBe(true);
      expect(problemsOf(`${twoGroups}router_settings: { default_litellm_params: { api_key: sk-x } }\n`)).toEqual([
        expect.stringMatching(/^AIGW_CONFIG: router_settings\.default_litellm_params\.api_key: unknown key/),
      ]);
    });

    it('warns of the router settings that change nothing here, and refuses those whose absence would let calls through', () => {
      const { warnings } = parseGatewayConfig(`${twoGroups}router_settings: { routing_strategy_args: { ttl: 60 }, client_ttl: 60, disable_cooldowns: false }\n`);
      expect(warnings).toEqual([
        'router_settings.routing_strategy_args is accepted and ignored: latency is a smoothed average and usage a per-minute count, with no arguments',
        'router_settings.client_ttl is accepted and ignored: upstream connections are pooled for the life of the process',
      ]);
      expect(
        problemsOf(
          `${twoGroups}router_settings: { enable_tag_filtering: true, provider_budget_config: { openai: { budget_limit: 10 } }, optional_pre_call_checks: [router_budget_limiting], rediss_host: x }\n`,
        ),
      ).toEqual([
        'AIGW_CONFIG: router_settings.enable_tag_filtering: refused: tag-based routing is not served, and tagged calls would reach deployments kept from them',
        'AIGW_CONFIG: router_settings.provider_budget_config: refused: provider budgets are not enforced, and spend would pass them; set max_budget on the keys',
        'AIGW_CONFIG: router_settings.rediss_host: unknown key (did you mean redis_host?)',
        'AIGW_CONFIG: router_settings.optional_pre_call_checks: refused: router_budget_limiting (provider budgets) is not enforced, and spend would pass them',
      ]);
    });

    it('reads retry_policy, model_group_retry_policy, allowed_fails_policy and retry_after by the names LiteLLM documents', () => {
      const { router } = parseGatewayConfig(
        `${twoGroups}router_settings:\n  retry_policy: { RateLimitErrorRetries: 3, TimeoutErrorRetries: 1 }\n  model_group_retry_policy: { big: { InternalServerErrorRetries: 4 } }\n  allowed_fails_policy: { BadRequestErrorAllowedFails: 1000 }\n  retry_after: 2\n`,
      );
      expect(router).toMatchObject({
        retryPolicy: { RateLimitError: 3, TimeoutError: 1 },
        groupRetryPolicies: { big: { InternalServerError: 4 } },
        allowedFailsPolicy: { BadRequestError: 1000 },
        retryAfterS: 2,
      });
      expect(problemsOf(`${twoGroups}router_settings: { retry_policy: { RateLimitRetries: 3 }, model_group_retry_policy: { nowhere: {} } }\n`)).toEqual([
        'AIGW_CONFIG: router_settings.retry_policy.RateLimitRetries: unknown key (did you mean RateLimitErrorRetries?)',
        'AIGW_CONFIG: router_settings.model_group_retry_policy.nowhere: "nowhere" is not a model_name of model_list',
      ]);
    });

    it("accepts LiteLLM's test and region switches of litellm_params with a warning, and its per-deployment num_retries as max_retries", () => {
      const { warnings } = parseGatewayConfig(`${twoGroups.replace('temperature: 0.2', 'region_name: eu, mock_timeout: true')}`);
      expect(warnings).toEqual([
        "model_list[0].litellm_params.region_name is accepted and ignored: region-based routing (a key's allowed_model_region) is not served; the deployment serves every caller",
        "model_list[0].litellm_params.mock_timeout is accepted and ignored: LiteLLM's test switch for a simulated timeout; calls go to the upstream",
      ]);
    });
  });

  it('has one rule per key, each with its reason, and a row of docs/ai-gateway.md saying its kind', () => {
    const keys = SETTING_RULES.map((rule) => `${rule.section}.${rule.key}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(SETTING_RULES.every((rule) => rule.why.length > 0)).toBe(true);
    const rows = readFileSync(path.resolve(__dirname, '../../../../../docs/ai-gateway.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `') || line.startsWith('| top-level'));
    const structural = ['model_list', 'router_settings', 'litellm_settings', 'general_settings'];
    const undocumented = SETTING_RULES.filter((rule) => !(rule.section === '(top level)' && structural.includes(rule.key))).filter(
      (rule) => !rows.some((row) => (row.includes(`\`${rule.section}.${rule.key}\``) || row.includes(`\`${rule.key}\``)) && row.includes(`| ${rule.kind} |`)),
    );
    expect(undocumented.map((rule) => `${rule.section}.${rule.key} (${rule.kind})`)).toEqual([]);
  });
});
