// Per-tool rate limits as two replicas count them: through the suite's Redis (TEST_REDIS_URL), and
// each on its own when there is no Redis or it cannot be reached.
import { randomUUID } from 'node:crypto';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MetricsRegistry } from '@arbor/observability';
import type { CatalogueCaller } from '../catalogue/catalogue-access';
import { McpMetrics } from '../metrics/mcp-metrics';
import { resolveRuntimeOptions } from '../runtime-options';
import { InMemoryServerRegistry } from '../transports/testing/test-gateway';
import { RATE_LIMITED, ToolRateLimits } from './tool-rate-limits';

describe('per-tool rate limits (tool_rate_limits)', () => {
  // The run's own server id: counts in the shared Redis never mix with another run's.
  const server = `limited-${randomUUID().slice(0, 8)}`;
  const registry = new InMemoryServerRegistry(
    [],
    [
      { id: server, project: 'alpha', name: 'Limited', selections: [{ upstream: 'repo', tools: '*', resources: '*', prompts: '*' }], toolRateLimits: { search: { perMinute: 2 } } },
      { id: `${server}-open`, project: 'alpha', name: 'Open', selections: [{ upstream: 'repo', tools: '*', resources: '*', prompts: '*' }] },
    ],
  );
  const replicas: ToolRateLimits[] = [];
  const replica = (redisUrl?: string) => {
    const limits = new ToolRateLimits(registry, new McpMetrics(new MetricsRegistry()), resolveRuntimeOptions(redisUrl ? { redisUrl } : {}));
    replicas.push(limits);
    return limits;
  };
  const caller = (principal: string, serverId: string | null = server, servers = [server]): CatalogueCaller => ({ serverId, grant: { principal, servers }, sessions: false });
  const search = { upstream: 'repo', original: 'search', name: 'search' };
  const outcome = (admitted: Promise<void> | undefined) =>
    Promise.resolve(admitted).then(
      () => 'admitted',
      (error: unknown) => (error instanceof McpError && error.code === RATE_LIMITED ? 'refused' : `failed: ${String(error)}`),
    );

  beforeAll(async () => {
    // Every call of a test within one minute of the clock the limits count by.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
  });

  afterAll(async () => {
    await Promise.all(replicas.map((limits) => limits.onModuleDestroy()));
  });

  it('costs nothing for a tool without a limit', () => {
    const limits = replica();
    expect(limits.admit(caller('ada'), { ...search, original: 'deploy', name: 'deploy' })).toBeUndefined();
    expect(limits.admit(caller('ada', `${server}-open`, [`${server}-open`]), search)).toBeUndefined();
  });

  it('counts a person across replicas through Redis, and each person apart', async () => {
    const redisUrl = process.env['TEST_REDIS_URL'];
    if (!redisUrl) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
    const [one, two] = [replica(redisUrl), replica(redisUrl)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const person = `grace-${randomUUID()}`;
    expect([await outcome(one.admit(caller(person), search)), await outcome(two.admit(caller(person), search)), await outcome(one.admit(caller(person), search))]).toEqual([
      'admitted',
      'admitted',
      'refused',
    ]);
    expect(await outcome(two.admit(caller(`other-${person}`), search))).toBe('admitted');
  });

  it('holds /mcp to the limits of the servers selecting the tool', async () => {
    const limits = replica();
    const union = caller('linus', null, [server, `${server}-open`]);
    expect([await outcome(limits.admit(union, search)), await outcome(limits.admit(caller('linus'), search)), await outcome(limits.admit(union, search))]).toEqual([
      'admitted',
      'admitted',
      'refused',
    ]);
  });

  it("counts on each replica's own when Redis cannot be reached, rather than refuse or wait", async () => {
    const limits = replica('redis://127.0.0.1:1');
    const started = Date.now();
    expect([await outcome(limits.admit(caller('ken'), search)), await outcome(limits.admit(caller('ken'), search)), await outcome(limits.admit(caller('ken'), search))]).toEqual([
      'admitted',
      'admitted',
      'refused',
    ]);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
