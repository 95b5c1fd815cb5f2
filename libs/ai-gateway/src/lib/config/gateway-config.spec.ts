import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@arbor/config';
import { EMPTY_GATEWAY_CONFIG, loadGatewayConfigFile, parseGatewayConfig } from './gateway-config';

const problemsOf = (text: string, env: NodeJS.ProcessEnv = {}): string[] => {
  try {
    parseGatewayConfig(text, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines();
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('AIGW_CONFIG (LiteLLM-shaped YAML)', () => {
  it('reads model_list, router_settings, litellm_settings and general_settings', () => {
    const config = parseGatewayConfig(
      `
model_list:
  - model_name: fast
    litellm_params:
      model: openai/gpt-4o-mini
      api_base: http://127.0.0.1:9999/v1
      api_key: os.environ/FAKE_OPENAI_KEY
      rpm: 600
      tpm: 100000
      timeout: 30
    model_info:
      id: fast-primary
      input_cost_per_token: 0.00000015
  - model_name: fast
    litellm_params:
      model: openai/gpt-4o
  - model_name: on-azure
    litellm_params:
      model: azure/prod-gpt-4o
      api_base: https://res.openai.azure.com
      api_version: "2024-10-21"
router_settings:
  num_retries: 2
  timeout: 60
  fallbacks: [{fast: [fast]}]
  allowed_fails: 3
  cooldown_time: 30
  routing_strategy: simple-shuffle
litellm_settings:
  drop_params: true
general_settings:
  master_key: sk-master
  always_include_stream_usage: true
`,
      { FAKE_OPENAI_KEY: 'sk-from-env' },
    );
    expect(config.deployments).toEqual([
      {
        id: 'fast-primary',
        alias: 'fast',
        provider: 'openai',
        model: 'gpt-4o-mini',
        apiBase: 'http://127.0.0.1:9999/v1',
        apiKey: 'sk-from-env',
        rpm: 600,
        tpm: 100000,
        timeoutMs: 30_000,
        modelInfo: { id: 'fast-primary', input_cost_per_token: 0.00000015 },
      },
      { id: 'fast-1', alias: 'fast', provider: 'openai', model: 'gpt-4o', modelInfo: {} },
      { id: 'on-azure-2', alias: 'on-azure', provider: 'azure', model: 'prod-gpt-4o', apiBase: 'https://res.openai.azure.com', apiVersion: '2024-10-21', modelInfo: {} },
    ]);
    expect(config.router).toEqual({
      ...EMPTY_GATEWAY_CONFIG.router,
      numRetries: 2,
      timeoutMs: 60_000,
      fallbacks: [{ fast: ['fast'] }],
      allowedFails: 3,
      cooldownTimeS: 30,
    });
    expect(config.dropParams).toBe(true);
    expect(config.masterKey).toBe('sk-master');
    expect(config.alwaysIncludeStreamUsage).toBe(true);
  });

  it('accepts an empty file as no aliases', () => {
    expect(parseGatewayConfig('').deployments).toEqual([]);
  });

  it('names every unknown key, at every level, one line each, with the nearest known key where one is near', () => {
    expect(
      problemsOf(`
model_list:
  - model_name: a
    litellm_params: { model: openai/x, temprature: 1, api_version: "2024-10-21" }
    extra: 1
router_settings: { num_retrys: 2 }
litellm_settings: { drop_param: true }
general_settings: { masterkey: x }
callbacks: []
`),
    ).toEqual([
      'AIGW_CONFIG: model_list[0].extra: unknown key (known: model_name, litellm_params, model_info, rpm, tpm)',
      'AIGW_CONFIG: model_list[0].litellm_params.temprature: unknown key for openai/ (did you mean temperature?)',
      expect.stringMatching(
        /^AIGW_CONFIG: model_list\[0\]\.litellm_params\.api_version: unknown key for openai\/ \(known: model, rpm, tpm, timeout, .*api_base, api_key, organization\)$/,
      ),
      expect.stringMatching(/^AIGW_CONFIG: callbacks: unknown key \(known: model_list, /),
      'AIGW_CONFIG: litellm_settings.drop_param: unknown key (did you mean drop_params?)',
      'AIGW_CONFIG: general_settings.masterkey: unknown key (did you mean master_key?)',
      'AIGW_CONFIG: router_settings.num_retrys: unknown key (did you mean num_retries?)',
    ]);
  });

  it('names unset os.environ references, bad values and unknown fallback aliases; a provider it does not serve is a warning, as LiteLLM starts with it', () => {
    const lines = problemsOf(`
model_list:
  - model_name: a
    litellm_params: { model: openai/x, api_key: os.environ/NOT_SET_ANYWHERE, rpm: many, api_base: "ftp://x" }
  - model_name: b
    litellm_params: { model: nosuchprovider/y }
  - litellm_params: { model: openai/z }
  - model_name: e
    litellm_params: { model: azure/prod-gpt-4o }
router_settings: { routing_strategy: fastest, fallbacks: [{a: [nowhere]}] }
litellm_settings: { drop_params: "yes" }
`);
    expect(lines).toEqual([
      'AIGW_CONFIG: model_list[0].litellm_params.api_base: must be an http(s) URL',
      'AIGW_CONFIG: model_list[0].litellm_params.api_key: names the environment variable NOT_SET_ANYWHERE, which is not set',
      'AIGW_CONFIG: model_list[0].litellm_params.rpm: must be a number',
      'AIGW_CONFIG: model_list[2].model_name: is required',
      'AIGW_CONFIG: model_list[3].litellm_params.api_base: is required for azure/ (https://<resource>.openai.azure.com)',
      'AIGW_CONFIG: router_settings.routing_strategy: must be one of simple-shuffle, least-busy, usage-based-routing-v2, latency-based-routing, cost-based-routing, got "fastest"',
      'AIGW_CONFIG: router_settings.fallbacks[0]: "nowhere" is not a model_name of model_list',
      'AIGW_CONFIG: litellm_settings.drop_params: must be true or false',
    ]);
    const config = parseGatewayConfig(
      'model_list:\n  - model_name: b\n    litellm_params: { model: nosuchprovider/y }\n  - model_name: c\n    litellm_params: { model: no-such-model }\n',
    );
    expect(config.deployments).toEqual([]);
    expect(config.unservedAliases).toEqual({
      b: expect.stringMatching(/^provider "nosuchprovider" \(model "nosuchprovider\/y"\) is not served by this gateway \(served: openai, anthropic, /),
      c: 'model "no-such-model" has no provider prefix and is not a model this gateway knows (write <provider>/no-such-model, or give AIGW_PRICE_MAP)',
    });
    expect(config.warnings).toEqual([
      expect.stringMatching(/^model_list\[0\] \(b\): provider "nosuchprovider"/),
      expect.stringMatching(/^model_list\[1\] \(c\): model "no-such-model"/),
    ]);
  });

  it('gives a provider its own litellm_params, names the ones it does not read, and fills keys from the variables LiteLLM reads', () => {
    const config = parseGatewayConfig(
      `
model_list:
  - model_name: claude
    litellm_params:
      model: bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0
      aws_region_name: eu-west-1
      aws_access_key_id: os.environ/TEST_AWS_KEY_ID
      aws_secret_access_key: os.environ/TEST_AWS_SECRET
  - model_name: gemini
    litellm_params: { model: vertex_ai/gemini-2.5-flash, vertex_project: my-project, vertex_location: europe-west4 }
  - model_name: mistral
    litellm_params: { model: mistral/mistral-small-latest }
  - model_name: vllm
    litellm_params: { model: hosted_vllm/qwen }
`,
      { TEST_AWS_KEY_ID: 'AKIA1', TEST_AWS_SECRET: 's3cret', MISTRAL_API_KEY: 'mistral-key', HOSTED_VLLM_API_BASE: 'http://vllm:8000/v1' },
    );
    expect(config.deployments.map(({ provider, model, params, apiKey, apiBase }) => ({ provider, model, params, apiKey, apiBase }))).toEqual([
      {
        provider: 'bedrock',
        model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        params: { aws_region_name: 'eu-west-1', aws_access_key_id: 'AKIA1', aws_secret_access_key: 's3cret' },
        apiKey: undefined,
        apiBase: undefined,
      },
      { provider: 'vertex_ai', model: 'gemini-2.5-flash', params: { vertex_project: 'my-project', vertex_location: 'europe-west4' }, apiKey: undefined, apiBase: undefined },
      { provider: 'mistral', model: 'mistral-small-latest', params: undefined, apiKey: 'mistral-key', apiBase: undefined },
      { provider: 'hosted_vllm', model: 'qwen', params: undefined, apiKey: undefined, apiBase: 'http://vllm:8000/v1' },
    ]);

    expect(
      problemsOf(`
model_list:
  - model_name: claude
    litellm_params: { model: bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0, aws_secret_key: x }
  - model_name: vllm
    litellm_params: { model: hosted_vllm/qwen }
`),
    ).toEqual([
      expect.stringMatching(/^AIGW_CONFIG: model_list\[0\]\.litellm_params\.aws_secret_key: unknown key for bedrock\/ \(known: .*aws_secret_access_key/),
      'AIGW_CONFIG: model_list[0].litellm_params.aws_region_name: is required for bedrock/ (the AWS region, e.g. us-east-1; or set AWS_REGION)',
      "AIGW_CONFIG: model_list[1].litellm_params.api_base: is required for hosted_vllm/ (the server's address, e.g. http://localhost:8000/v1)",
    ]);
  });

  describe('a misspelt key is reported once, with the key it meant, and nothing that follows from it', () => {
    it.each([
      {
        where: 'an entry of model_list (litellm_params)',
        yaml: `
model_list:
  - model_name: gpt-4o-mini
    litelm_params: { model: openai/gpt-4o-mini, api_key: sk-x }
  - model_name: other
    litellm_params: { model: openai/gpt-4o, api_key: sk-x }
router_settings:
  fallbacks: [{gpt-4o-mini: [other]}]
`,
        line: 'AIGW_CONFIG: model_list[0].litelm_params: unknown key (did you mean litellm_params?)',
      },
      {
        where: 'an entry of model_list (model_name)',
        yaml: `
model_list:
  - model_nme: gpt-4o-mini
    litellm_params: { model: openai/gpt-4o-mini }
  - model_name: other
    litellm_params: { model: openai/gpt-4o }
router_settings:
  fallbacks: [{gpt-4o-mini: [other]}]
`,
        line: 'AIGW_CONFIG: model_list[0].model_nme: unknown key (did you mean model_name?)',
      },
      {
        where: "a provider's litellm_params",
        yaml: `
model_list:
  - model_name: local
    litellm_params: { model: hosted_vllm/qwen, api_bse: "http://vllm:8000/v1" }
`,
        line: 'AIGW_CONFIG: model_list[0].litellm_params.api_bse: unknown key for hosted_vllm/ (did you mean api_base?)',
      },
      {
        where: 'the top level',
        yaml: `
model_lst:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini }
router_settings:
  fallbacks: [{fast: [fast]}]
`,
        line: 'AIGW_CONFIG: model_lst: unknown key (did you mean model_list?)',
      },
    ])('in $where: one line', ({ yaml, line }) => {
      expect(problemsOf(yaml)).toEqual([line]);
    });

    it('an entry left out for its own problem is not a second problem where a fallback names it', () => {
      expect(
        problemsOf(`
model_list:
  - model_name: primary
    litellm_params: { api_key: sk-x }
  - model_name: backup
    litellm_params: { model: openai/gpt-4o }
router_settings:
  fallbacks: [{primary: [backup]}, {backup: [nowhere]}]
`),
      ).toEqual(['AIGW_CONFIG: model_list[0].litellm_params.model: is required', 'AIGW_CONFIG: router_settings.fallbacks[1]: "nowhere" is not a model_name of model_list']);
    });
  });

  it('says when the YAML cannot be parsed or the file cannot be read', () => {
    expect(problemsOf('model_list: [')[0]).toMatch(/^AIGW_CONFIG: not valid YAML/);
    expect(() => loadGatewayConfigFile('/nonexistent/aigw.yaml')).toThrow(/AIGW_CONFIG: cannot read \/nonexistent\/aigw\.yaml/);
    const dir = mkdtempSync(path.join(tmpdir(), 'aigw-'));
    writeFileSync(path.join(dir, 'c.yaml'), 'model_list:\n  - model_name: a\n    litellm_params: { model: openai/x }\n');
    expect(loadGatewayConfigFile(path.join(dir, 'c.yaml')).deployments.map((d) => d.model)).toEqual(['x']);
  });
});
