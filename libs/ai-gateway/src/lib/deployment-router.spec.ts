import { EMPTY_GATEWAY_CONFIG, GatewayDeployment, parseGatewayConfig, RoutingStrategy } from './config/gateway-config';
import { DeploymentRouter } from './deployment-router';
import { GatewayClock } from './gateway-clock';
import { ModelPrices } from './pricing/model-prices';

function routerWith(strategy: RoutingStrategy, ids: string[]): DeploymentRouter {
  const deployments: GatewayDeployment[] = ids.map((id) => ({ id, alias: 'chat', provider: 'openai', model: id, modelInfo: {} }));
  return new DeploymentRouter({ ...EMPTY_GATEWAY_CONFIG, deployments, router: { ...EMPTY_GATEWAY_CONFIG.router, routingStrategy: strategy } });
}

const picks = (router: DeploymentRouter, times = 50) => new Set(Array.from({ length: times }, () => router.pick('chat')?.id));

describe('routing strategies', () => {
  it('least-busy sends a call to the deployment with the fewest calls in flight', () => {
    const router = routerWith('least-busy', ['a', 'b', 'c']);
    router.started('a');
    router.started('b');
    router.started('b');
    expect(picks(router)).toEqual(new Set(['c']));
    router.started('c');
    router.started('c');
    router.finished('a');
    expect(picks(router)).toEqual(new Set(['a']));
  });

  it('least-busy shares the load between equally busy deployments', () => {
    expect(picks(routerWith('least-busy', ['a', 'b']))).toEqual(new Set(['a', 'b']));
  });

  it('latency-based-routing tries unmeasured deployments first, then prefers the fastest', () => {
    const router = routerWith('latency-based-routing', ['slow', 'fast']);
    router.observeLatency('slow', 400);
    expect(picks(router)).toEqual(new Set(['fast']));
    router.observeLatency('fast', 50);
    expect(picks(router)).toEqual(new Set(['fast']));
  });

  it('latency-based-routing moves away from a deployment that became slow', () => {
    const router = routerWith('latency-based-routing', ['a', 'b']);
    router.observeLatency('a', 50);
    router.observeLatency('b', 100);
    expect(picks(router)).toEqual(new Set(['a']));
    for (let i = 0; i < 5; i++) router.observeLatency('a', 1000);
    expect(picks(router)).toEqual(new Set(['b']));
  });

  it('simple-shuffle weighs deployments by rpm', () => {
    const deployments: GatewayDeployment[] = [
      { id: 'big', alias: 'chat', provider: 'openai', model: 'm', rpm: 900, modelInfo: {} },
      { id: 'small', alias: 'chat', provider: 'openai', model: 'm', rpm: 100, modelInfo: {} },
    ];
    const router = new DeploymentRouter({ ...EMPTY_GATEWAY_CONFIG, deployments });
    expect(router.pick('chat', new Set(), () => 0.85)?.id).toBe('big');
    expect(router.pick('chat', new Set(), () => 0.95)?.id).toBe('small');
  });
});

describe('usage-based-routing-v2', () => {
  let now = 0;
  const clock: GatewayClock = { now: () => now };
  const routerOf = (deployments: GatewayDeployment[], preCallChecks = false) =>
    new DeploymentRouter(
      { ...EMPTY_GATEWAY_CONFIG, deployments, router: { ...EMPTY_GATEWAY_CONFIG.router, routingStrategy: 'usage-based-routing-v2', preCallChecks } },
      undefined,
      undefined,
      clock,
    );
  const chat = (id: string, limits: { rpm?: number; tpm?: number } = {}): GatewayDeployment => ({ id, alias: 'chat', provider: 'openai', model: id, modelInfo: {}, ...limits });
  beforeEach(() => (now = 120_000));

  it('sends a call to the deployment that used the fewest tokens this minute', () => {
    const router = routerOf([chat('a'), chat('b'), chat('c')]);
    router.usedTokens('a', 500);
    router.usedTokens('b', 100);
    router.usedTokens('c', 300);
    expect(picks(router)).toEqual(new Set(['b']));
    router.usedTokens('b', 900);
    expect(picks(router)).toEqual(new Set(['c']));
  });

  it('skips a deployment whose rpm or tpm this minute the call would pass, and counts afresh each minute', () => {
    const router = routerOf([chat('small', { rpm: 1 }), chat('tight', { tpm: 1000 }), chat('big', { tpm: 100_000 })]);
    router.started('small');
    router.finished('small');
    router.usedTokens('big', 5_000);
    router.usedTokens('tight', 900);
    // 'small' used its one request, 'tight' cannot take 200 more tokens: 'big' serves although it used the most.
    expect(new Set(Array.from({ length: 20 }, () => router.pick('chat', new Set(), Math.random, { promptTokens: 200 })?.id))).toEqual(new Set(['big']));
    now += 60_000;
    expect(picks(router)).toEqual(new Set(['small', 'tight', 'big']));
  });

  it('has nothing to pick when every deployment is at its limit, and says when the minute turns', () => {
    const router = routerOf([chat('a', { rpm: 1 })]);
    router.started('a');
    now = 150_000;
    expect(router.pick('chat')).toBeUndefined();
    expect(router.soonestAvailableMs('chat')).toBe(30_000);
  });
});

describe('cost-based-routing', () => {
  it('sends a call to the cheapest deployment by price per token, unpriced ones last', () => {
    const deployments: GatewayDeployment[] = [
      { id: 'dear', alias: 'chat', provider: 'openai', model: 'm', modelInfo: { input_cost_per_token: 0.00001, output_cost_per_token: 0.00003 } },
      { id: 'cheap', alias: 'chat', provider: 'openai', model: 'm', modelInfo: { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 } },
      { id: 'unpriced', alias: 'chat', provider: 'openai', model: 'house-model-without-price', modelInfo: {} },
    ];
    const settings = { ...EMPTY_GATEWAY_CONFIG, deployments, router: { ...EMPTY_GATEWAY_CONFIG.router, routingStrategy: 'cost-based-routing' as const } };
    const router = new DeploymentRouter(settings, undefined, new ModelPrices(deployments));
    expect(picks(router)).toEqual(new Set(['cheap']));
    expect(router.pick('chat', new Set(['cheap']))?.id).toBe('dear');
    expect(router.pick('chat', new Set(['cheap', 'dear']))?.id).toBe('unpriced');
  });
});

describe('limits and checks before the pick', () => {
  it('skips a deployment at its max_parallel_requests until one of its calls ends', () => {
    const deployments: GatewayDeployment[] = [
      { id: 'one-at-a-time', alias: 'chat', provider: 'openai', model: 'm', maxParallelRequests: 1, modelInfo: {} },
      { id: 'other', alias: 'chat', provider: 'openai', model: 'm', modelInfo: {} },
    ];
    const router = new DeploymentRouter({ ...EMPTY_GATEWAY_CONFIG, deployments, router: { ...EMPTY_GATEWAY_CONFIG.router, routingStrategy: 'least-busy' } });
    router.started('one-at-a-time');
    router.started('other');
    router.started('other');
    expect(picks(router)).toEqual(new Set(['other']));
    router.finished('one-at-a-time');
    expect(picks(router)).toEqual(new Set(['one-at-a-time']));
  });

  it('with enable_pre_call_checks, skips deployments whose context window the prompt does not fit, and names the largest when none fits', () => {
    const deployments: GatewayDeployment[] = [
      { id: 'short', alias: 'chat', provider: 'openai', model: 'm', modelInfo: { max_input_tokens: 1000 } },
      { id: 'long', alias: 'chat', provider: 'openai', model: 'm', modelInfo: { max_input_tokens: 100_000 } },
    ];
    const router = new DeploymentRouter({ ...EMPTY_GATEWAY_CONFIG, deployments, router: { ...EMPTY_GATEWAY_CONFIG.router, preCallChecks: true } });
    const pickFor = (promptTokens: number) => new Set(Array.from({ length: 30 }, () => router.pick('chat', new Set(), Math.random, { promptTokens })?.id));
    expect(pickFor(500)).toEqual(new Set(['short', 'long']));
    expect(pickFor(5_000)).toEqual(new Set(['long']));
    expect(router.exceededWindow('chat', { promptTokens: 5_000 })).toBeUndefined();
    expect(pickFor(200_000)).toEqual(new Set([undefined]));
    expect(router.exceededWindow('chat', { promptTokens: 200_000 })).toBe(100_000);
    const unchecked = new DeploymentRouter({ ...EMPTY_GATEWAY_CONFIG, deployments });
    expect(unchecked.pick('chat', new Set(), Math.random, { promptTokens: 200_000 })).toBeDefined();
  });
});

describe('model_group_alias', () => {
  const router = new DeploymentRouter(
    parseGatewayConfig(`
model_list:
  - model_name: claude-sonnet
    litellm_params: { model: anthropic/claude-sonnet-4-6 }
  - model_name: gpt-4o
    litellm_params: { model: openai/gpt-4o }
router_settings:
  model_group_alias:
    sonnet: claude-sonnet
    Claude-Sonnet: { model: claude-sonnet, hidden: true }
    gpt-4o: claude-sonnet
`),
  );

  it('serves an alias name by the group it names, and reports that group', () => {
    expect(router.has('sonnet')).toBe(true);
    expect(router.pick('sonnet')?.model).toBe('claude-sonnet-4-6');
    expect(router.pick('Claude-Sonnet')?.model).toBe('claude-sonnet-4-6');
    expect(router.groupName('sonnet')).toBe('claude-sonnet');
    expect(router.groupAliasTarget('sonnet')).toBe('claude-sonnet');
    expect(router.groupAliasTarget('claude-sonnet')).toBeUndefined();
  });

  it('goes to the named group even where the alias is also a model_name, as LiteLLM does', () => {
    expect(router.pick('gpt-4o')?.model).toBe('claude-sonnet-4-6');
  });

  it('lists alias names in /v1/models, except hidden ones', () => {
    expect(router.listedModels().sort()).toEqual(['claude-sonnet', 'gpt-4o', 'sonnet']);
  });
});

describe('wildcard aliases', () => {
  const router = new DeploymentRouter({
    ...parseGatewayConfig(`
model_list:
  - model_name: gpt-4o
    litellm_params: { model: azure/prod-gpt-4o, api_base: https://example.openai.azure.com }
  - model_name: anthropic/*
    litellm_params: { model: anthropic/* }
  - model_name: anthropic/claude-haiku-*
    litellm_params: { model: anthropic/claude-3-5-haiku-* }
  - model_name: "*"
    litellm_params: { model: "*" }
`),
  });
  const served = (name: string) => {
    const deployment = router.pick(name);
    return deployment ? `${deployment.alias} → ${deployment.provider}/${deployment.model}` : undefined;
  };

  it('serves an exact alias first, then the most specific pattern, then the catch-all with the provider resolved from the name', () => {
    expect(served('gpt-4o')).toBe('gpt-4o → azure/prod-gpt-4o');
    expect(served('anthropic/claude-sonnet-4-5')).toBe('anthropic/* → anthropic/claude-sonnet-4-5');
    expect(served('anthropic/claude-haiku-latest')).toBe('anthropic/claude-haiku-* → anthropic/claude-3-5-haiku-latest');
    expect(served('gpt-4.1-mini')).toBe('* → openai/gpt-4.1-mini');
    expect(served('gemini/gemini-2.5-flash')).toBe('* → gemini/gemini-2.5-flash');
    expect(router.groupName('gpt-4.1-mini')).toBe('*');
  });

  it('does not serve a name the catch-all cannot resolve to a provider', () => {
    expect(router.has('no-such-model')).toBe(false);
    expect(served('no-such-model')).toBeUndefined();
  });
});
