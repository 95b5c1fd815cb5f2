import { MetricsRegistry } from '@arbor/observability';
import { EMPTY_GATEWAY_CONFIG, GatewayDeployment } from '../config/gateway-config';
import { DeploymentCooldowns } from '../deployment-cooldowns';
import { DeploymentRouter } from '../deployment-router';
import { GatewayMetrics } from './gateway-metrics';
import { NO_USAGE } from './usage';

const mini: GatewayDeployment = { id: 'mini-0', alias: 'mini', provider: 'openai', model: 'gpt-4o-mini', modelInfo: {} };
const call = {
  alias: 'mini',
  deployment: mini,
  status: 200,
  seconds: 0.2,
  usage: { ...NO_USAGE, promptTokens: 10, completionTokens: 5 },
  cost: 0.25,
  retries: 0,
  fallbacks: 0,
  requestedAlias: 'mini',
};

/** The value of the one exposition line starting with `series` (name and labels), or undefined. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GatewayMetrics', () => {
  let registry: MetricsRegistry;
  let metrics: GatewayMetrics;
  let coolDown: (deploymentId: string) => void;

  beforeEach(() => {
    registry = new MetricsRegistry();
    const cooldowns = { onCooldown: (listener: (id: string) => void) => (coolDown = listener) } as unknown as DeploymentCooldowns;
    metrics = new GatewayMetrics(registry, cooldowns, new DeploymentRouter({ ...EMPTY_GATEWAY_CONFIG, deployments: [mini] }));
  });

  it('adds up calls per alias and deployment, and keeps aliases sharing a deployment apart', async () => {
    metrics.call(call);
    metrics.call({ ...call, firstTokenSeconds: 0.05 });
    metrics.call({ ...call, alias: 'fallback', requestedAlias: 'mini', fallbacks: 1 });

    const text = await registry.metrics();
    const mini0 = 'alias="mini",deployment="mini-0",provider="openai"';
    expect(valueOf(text, `arbor_aigw_requests_total{${mini0},status="200"}`)).toBe(2);
    expect(valueOf(text, `arbor_aigw_requests_total{alias="fallback",deployment="mini-0",provider="openai",status="200"}`)).toBe(1);
    expect(valueOf(text, `arbor_aigw_request_duration_seconds_count{${mini0}}`)).toBe(2);
    expect(valueOf(text, `arbor_aigw_request_duration_seconds_bucket{le="0.25",${mini0}}`)).toBe(2);
    expect(valueOf(text, `arbor_aigw_time_to_first_token_seconds_count{${mini0}}`)).toBe(1);
    expect(valueOf(text, `arbor_aigw_tokens_total{${mini0},kind="prompt"}`)).toBe(20);
    expect(valueOf(text, `arbor_aigw_tokens_total{${mini0},kind="completion"}`)).toBe(10);
    expect(valueOf(text, `arbor_aigw_cost_usd_total{${mini0}}`)).toBe(0.5);
    expect(valueOf(text, `arbor_aigw_fallbacks_total{alias="mini"}`)).toBe(1);
    expect(text).not.toContain('arbor_aigw_errors_total{');
  });

  it('counts failures by status and code, also before any deployment was tried', async () => {
    metrics.call({ ...call, status: 502, errorCode: 'upstream_error', cost: 0 });
    metrics.call({ ...call, status: 502, errorCode: 'upstream_error', cost: 0 });
    metrics.call({ ...call, deployment: undefined, status: 429, errorCode: null, usage: undefined, cost: 0, retries: 2 });

    const text = await registry.metrics();
    expect(valueOf(text, 'arbor_aigw_requests_total{alias="mini",deployment="mini-0",provider="openai",status="502"}')).toBe(2);
    expect(valueOf(text, 'arbor_aigw_errors_total{alias="mini",deployment="mini-0",provider="openai",code="upstream_error"}')).toBe(2);
    expect(valueOf(text, 'arbor_aigw_requests_total{alias="mini",deployment="",provider="",status="429"}')).toBe(1);
    expect(valueOf(text, 'arbor_aigw_errors_total{alias="mini",deployment="",provider="",code="429"}')).toBe(1);
    expect(valueOf(text, 'arbor_aigw_retries_total{alias="mini"}')).toBe(2);
    expect(text).not.toContain('arbor_aigw_cost_usd_total{');
  });

  it('counts a deployment starting to cool down', async () => {
    coolDown('mini-0');
    coolDown('mini-0');
    expect(valueOf(await registry.metrics(), 'arbor_aigw_cooldowns_total{alias="mini",deployment="mini-0",provider="openai"}')).toBe(2);
  });
});
