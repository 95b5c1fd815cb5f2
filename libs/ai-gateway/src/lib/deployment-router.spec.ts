import { EMPTY_GATEWAY_CONFIG, GatewayDeployment, parseGatewayConfig, RoutingStrategy } from './config/gateway-config';
import { DeploymentRouter } from './deployment-router';

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
