import { EMPTY_GATEWAY_CONFIG, GatewayDeployment, RoutingStrategy } from './config/gateway-config';
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
