import { EMPTY_GATEWAY_CONFIG } from './config/gateway-config';
import { DeploymentCooldowns, retryAfterSeconds } from './deployment-cooldowns';
import { GatewayClock } from './gateway-clock';

describe('DeploymentCooldowns', () => {
  let now: number;
  const clock = { now: () => now } as GatewayClock;
  const cooldowns = (allowedFails?: number, cooldownTimeS?: number) =>
    new DeploymentCooldowns(
      {
        router: {
          ...EMPTY_GATEWAY_CONFIG.router,
          ...(allowedFails !== undefined ? { allowedFails } : {}),
          ...(cooldownTimeS !== undefined ? { cooldownTimeS } : {}),
        },
      },
      clock,
    );

  beforeEach(() => (now = 1_000_000));

  it('cools a deployment down after allowed_fails failures within a minute, for cooldown_time', () => {
    const health = cooldowns(2, 10);
    health.recordFailure('a', { countable: true });
    expect(health.isCooling('a')).toBe(false);
    health.recordFailure('a', { countable: true });
    expect(health.isCooling('a')).toBe(true);
    now += 9_999;
    expect(health.isCooling('a')).toBe(true);
    now += 1;
    expect(health.isCooling('a')).toBe(false);
  });

  it("keeps a deployment's last failure, shortened, with when it happened, also with disable_cooldowns", () => {
    const health = cooldowns(5, 10);
    expect(health.lastError('a')).toBeUndefined();
    health.recordFailure('a', { countable: true, error: { status: 500, code: 'server_error', message: 'first' } });
    now += 1_000;
    health.recordFailure('a', { countable: true, error: { status: 503, code: null, message: 'x'.repeat(1_000) } });
    expect(health.lastError('a')).toEqual({ status: 503, code: null, message: `${'x'.repeat(299)}…`, at: 1_001_000 });
    expect(health.lastError('b')).toBeUndefined();
    const off = new DeploymentCooldowns({ router: { ...EMPTY_GATEWAY_CONFIG.router, disableCooldowns: true } }, clock);
    off.recordFailure('a', { countable: true, error: { status: 429, code: 'rate_limit_exceeded', message: 'slow down' } });
    expect(off.lastError('a')).toMatchObject({ status: 429, message: 'slow down' });
    expect(off.isCooling('a')).toBe(false);
  });

  it('forgets failures older than a minute', () => {
    const health = cooldowns(2, 10);
    health.recordFailure('a', { countable: true });
    now += 60_000;
    health.recordFailure('a', { countable: true });
    expect(health.isCooling('a')).toBe(false);
  });

  it('uses LiteLLM defaults (3 fails, 5 s) when router_settings leaves them out', () => {
    const health = cooldowns();
    for (let i = 0; i < 2; i++) health.recordFailure('a', { countable: true });
    expect(health.isCooling('a')).toBe(false);
    health.recordFailure('a', { countable: true });
    expect(health.remainingMs('a')).toBe(5_000);
  });

  it('does not count failures of the only deployment of an alias', () => {
    const health = cooldowns(1, 10);
    health.recordFailure('only', { countable: false });
    expect(health.isCooling('only')).toBe(false);
  });

  it('honours a 429 Retry-After longer than cooldown_time, even for the only deployment', () => {
    const health = cooldowns(5, 10);
    health.recordFailure('a', { countable: false, retryAfterS: 45 });
    expect(health.remainingMs('a')).toBe(45_000);
    now += 44_000;
    expect(health.isCooling('a')).toBe(true);
    now += 1_000;
    expect(health.isCooling('a')).toBe(false);
  });

  it('cools for at least cooldown_time when Retry-After is shorter', () => {
    const health = cooldowns(5, 10);
    health.recordFailure('a', { countable: true, retryAfterS: 1 });
    expect(health.remainingMs('a')).toBe(10_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('7', 0)).toBe(7);
    expect(retryAfterSeconds(new Date(30_000).toUTCString(), 0)).toBe(30);
    expect(retryAfterSeconds(undefined, 0)).toBeUndefined();
    expect(retryAfterSeconds('soon', 0)).toBeUndefined();
  });
});
