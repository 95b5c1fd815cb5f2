// Hostile input against every operation of every service, read from each service's own OpenAPI
// document (a new endpoint is fuzzed without a line here), plus what the documents do not describe
// (explicit-operations.ts: model calls, uploads, stored resources, pass-throughs, WebSockets, MCP
// endpoints). Every route a service registers must be reached by one of these: the route-coverage
// test reads each service's route table and names any route left out. For every request: never a
// 5xx; every refusal JSON with a stable code and a message, quoting nothing sent beyond a
// 64-character excerpt; never the provider's key in an answer; no pass-through request reaching
// the provider outside its configured base path; and, for the admin APIs and MCP endpoints,
// nothing written to the database by a refused request.
//
// Seeded: FUZZ_SEED=<n> reruns exactly the requests a failure report names; FUZZ_RUNS=<n> sets
// the requests per operation (25 in `npm test`, a minute or so for the whole suite).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { FakeProviderRequest } from '@arbor/testing';
import { DatabaseFingerprint } from './database-fingerprint';
import { answerProblem, describeRequest, HostileRequest, hostileRequests, probes, send, Target } from './hostile-requests';
import { MALFORMED_AUTHORIZATION } from './hostile-values';
import { aiGatewayCalls, MCP_CALLS, MCP_OTHER_CALLS, metricsCall, MODERN_MCP_CALLS, PASS_THROUGH_CALLS, RESOURCE_CALLS, unknownRouteCall } from './explicit-operations';
import { Operation, operationsOf } from './openapi-operations';
import { EXCLUDED_ROUTES, excludedRoutes, routeTable, uncoveredRoutes } from './route-coverage';
import { MASTER_KEY, RESOURCE_ALIAS, startSuite, SuiteUnderTest } from './suite-under-test';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261125);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 25);
/** Random requests per operation where the probes carry the point (a second caller of the same operations). */
const FEW_RUNS = Math.max(3, Math.ceil(RUNS / 5));

/** Each operation its own seed, so that adding one does not change the requests of the others. */
function seedOf(operation: Operation): number {
  return (SEED ^ createHash('sha256').update(operation.name).digest().readInt32LE(0)) | 0;
}

async function documentedOperations(service: string, url: string): Promise<Operation[]> {
  const response = await fetch(`${url}/api/v1/openapi.json`);
  if (!response.ok) throw new Error(`${service} serves no OpenAPI document (${response.status})`);
  return operationsOf(service, (await response.json()) as Parameters<typeof operationsOf>[1]);
}

/** How many answers of each status the run saw, to show it reached past the door. */
const statuses = new Map<number, number>();
afterAll(() => process.stdout.write(`fuzz answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`));

/** What reached the fake providers after the first `since` requests, and how many have in all. */
async function upstreamSince(fakeUrl: string, since: number): Promise<{ total: number; entries: FakeProviderRequest[] }> {
  const response = await fetch(`${fakeUrl}/_fake/requests?since=${since}`);
  return { total: Number(response.headers.get('x-fake-total')), entries: (await response.json()) as FakeProviderRequest[] };
}

/** Every failing operation, with the request that showed it; an empty list when all held. */
/** `upstream`: the fake providers' URL, to check where requests of operations with upstreamBases went. */
async function fuzz(operations: Operation[], target: Target, database?: DatabaseFingerprint, upstream?: string): Promise<string[]> {
  const failures: string[] = [];
  for (const operation of operations) {
    const bases = operation.upstreamBases;
    let seen = bases && upstream ? (await upstreamSince(upstream, 0)).total : 0;
    const result = await fc.check(
      fc.asyncProperty(hostileRequests(operation, target), async (hostile: HostileRequest) => {
        const before = database && (await database.take());
        const answer = await send(target.url, hostile);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        let relayed = false;
        if (bases && upstream) {
          const { total, entries: sent } = await upstreamSince(upstream, seen);
          seen = total;
          const escaped = sent.filter((entry) => !bases.some((base) => entry.path === base || entry.path.startsWith(`${base}/`) || entry.path.startsWith(`${base}?`)));
          if (escaped.length > 0)
            throw new Error(`reached the provider outside its base ${bases.join(' or ')}: ${escaped.map((entry) => `${entry.method} ${entry.path.slice(0, 120)}`).join(', ')}`);
          // The caller's own key (in whatever header it came) is the gateway's to check, never the provider's to see.
          const key = target.authorization.replace(/^Bearer /, '');
          const leaked = sent.flatMap((entry) =>
            Object.entries(entry.headers)
              .filter(([, value]) => String(value).includes(key))
              .map(([name]) => `${entry.method} ${entry.path.slice(0, 80)} (${name})`),
          );
          if (leaked.length > 0) throw new Error(`passed the caller's key on to the provider: ${leaked.join(', ')}`);
          // What came back from upstream is the upstream's to word; the gateway's own refusals are checked in full.
          relayed = sent.length > 0;
        }
        const problem = answerProblem(answer, hostile, target, relayed);
        if (problem) throw new Error(problem);
        if (database && answer.status >= 400 && (await database.take()) !== before) {
          throw new Error(`refused with ${answer.status} (${answer.text.slice(0, 120)}) but wrote to the database`);
        }
      }),
      { seed: seedOf(operation), numRuns: operation.runs ?? RUNS, endOnFailure: true, examples: probes(operation, target).map((probe) => [probe] as [HostileRequest]) },
    );
    if (result.failed) {
      // A request that stopped the service fails its operation; the others still get theirs.
      const stopped = await target.revive?.();
      const error = `${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}${stopped === undefined ? '' : `\n    the service stopped (restarted for the next operations): ${stopped}`}`;
      const request = result.counterexample ? describeRequest(result.counterexample[0]) : '(no request)';
      failures.push(`${operation.name}: ${error}\n    request: ${request}\n    reproduce: FUZZ_SEED=${SEED}`);
    }
  }
  return failures;
}

/** The provider key of every deployment: no answer may carry it. */
const UPSTREAM_KEY = 'sk-upstream';
const CONTROL_PLANE_CALLS = [metricsCall('control-plane'), unknownRouteCall('control-plane')];
const AI_ADMIN_CALLS = [metricsCall('ai-gateway'), unknownRouteCall('ai-gateway')];
const MCP_ADMIN_CALLS = [metricsCall('mcp-gateway'), unknownRouteCall('mcp-gateway')];
const MCP_ENDPOINT_CALLS: Operation[] = [...MCP_CALLS, ...MODERN_MCP_CALLS, ...MCP_OTHER_CALLS];

/**
 * Whether the AI gateway still lets the target's caller in, as a failure line when not: a fuzz run
 * whose key was blocked or rotated away would meet only 401s, and pass without reaching anything.
 */
async function stillAdmitted(target: Target): Promise<string[]> {
  const response = await fetch(`${target.url}/v1/models`, { headers: { authorization: target.authorization } });
  return response.ok
    ? []
    : [`the fuzz run's own key is no longer let in (GET /v1/models: ${response.status} ${(await response.text()).slice(0, 200)}): its requests reached nothing`];
}

describe('hostile input against the built suite', () => {
  let suite: SuiteUnderTest;

  beforeAll(async () => {
    suite = await startSuite();
  }, 180_000);

  afterAll(() => suite?.stop());

  async function withDatabase<T>(url: string, run: (database: DatabaseFingerprint) => Promise<T>): Promise<T> {
    const database = await DatabaseFingerprint.open(url);
    try {
      return await run(database);
    } finally {
      await database.close();
    }
  }

  it('every route each service registers has fuzz operations, read from its own route table', async () => {
    const services = [
      { name: 'control-plane', url: suite.controlPlane.url, table: routeTable(suite.controlPlane.routeTable), explicit: CONTROL_PLANE_CALLS },
      {
        name: 'ai-gateway',
        url: suite.aiGateway.service.url,
        table: routeTable(suite.aiGateway.service.routeTable),
        explicit: [...aiGatewayCalls(), ...RESOURCE_CALLS, ...PASS_THROUGH_CALLS, ...AI_ADMIN_CALLS],
      },
      { name: 'mcp-gateway', url: suite.mcpGateway.service.url, table: routeTable(suite.mcpGateway.service.routeTable), explicit: [...MCP_ENDPOINT_CALLS, ...MCP_ADMIN_CALLS] },
    ];
    const uncovered: string[] = [];
    const excluded: string[] = [];
    for (const service of services) {
      // The table is read from the routers: each gateway has controllers, direct routes and WebSocket upgrades.
      expect(new Set(service.table.map((entry) => entry.router))).toEqual(new Set(service.name === 'control-plane' ? ['express'] : ['express', 'direct', 'upgrade']));
      const operations = [...(await documentedOperations(service.name, service.url)), ...service.explicit];
      uncovered.push(...uncoveredRoutes(service.name, service.table, operations));
      excluded.push(...excludedRoutes(service.name, service.table));
    }
    process.stdout.write(`routes not fuzzed (they take no hostile input):\n${excluded.map((line) => `  ${line}`).join('\n')}\n`);
    expect(uncovered).toEqual([]);
    // An exclusion names a route that exists: a renamed route is fuzzed again, not silently forgotten.
    expect(excluded).toHaveLength(EXCLUDED_ROUTES.length);
  });

  it('every malformed bearer token is a 401 invalid_token challenge, in every service', async () => {
    const doors = [
      { name: 'control plane', url: `${suite.controlPlane.url}/api/v1/me`, method: 'GET' },
      { name: 'AI gateway admin API', url: `${suite.aiGateway.service.url}/api/v1/keys`, method: 'GET' },
      { name: 'MCP gateway admin API', url: `${suite.mcpGateway.service.url}/api/v1/upstreams`, method: 'GET' },
      { name: 'MCP gateway /mcp', url: `${suite.mcpGateway.service.url}/mcp`, method: 'POST' },
    ];
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    });
    const answers: string[] = [];
    for (const door of doors) {
      for (const authorization of MALFORMED_AUTHORIZATION.filter((value) => /^Bearer \S/.test(value))) {
        const response = await fetch(door.url, {
          method: door.method,
          headers: { authorization, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
          ...(door.method === 'POST' ? { body: initialize } : {}),
        });
        const challenge = response.headers.get('www-authenticate') ?? '';
        if (response.status !== 401 || !/^Bearer .*error="invalid_token"/.test(challenge))
          answers.push(`${door.name} ${authorization.slice(0, 40)}: ${response.status} ${challenge}`);
      }
    }
    expect(answers).toEqual([]);
  });

  it('the control plane: every operation of its OpenAPI document', async () => {
    const { controlPlane } = suite;
    const operations = await documentedOperations('control-plane', controlPlane.url);
    expect(operations.length).toBeGreaterThan(20);
    const target: Target = { url: controlPlane.url, authorization: `Bearer ${controlPlane.tokens.admin}`, validParams: suite.ids.controlPlane };
    expect(await withDatabase(controlPlane.databaseUrl, (database) => fuzz([...operations, ...CONTROL_PLANE_CALLS], target, database))).toEqual([]);
  });

  it("the AI gateway's admin API: every operation of its OpenAPI document", async () => {
    const { aiGateway } = suite;
    const operations = await documentedOperations('ai-gateway', aiGateway.service.url);
    expect(operations.map((operation) => operation.name)).toEqual(
      expect.arrayContaining(['ai-gateway POST /api/v1/keys', 'ai-gateway GET /api/v1/spend', 'ai-gateway POST /key/regenerate']),
    );
    const target: Target = {
      url: aiGateway.service.url,
      authorization: `Bearer ${MASTER_KEY}`,
      validParams: suite.ids.aiGateway,
      secrets: [UPSTREAM_KEY],
      revive: () => aiGateway.revive(),
    };
    expect(await withDatabase(aiGateway.database.url, (database) => fuzz([...operations, ...AI_ADMIN_CALLS], target, database))).toEqual([]);
  });

  it("the AI gateway's model calls: chat, responses, messages, images, audio, moderations, rerank, realtime (uploads multipart)", async () => {
    // Successful calls record spend in the background: the database is not compared here. What the
    // provider answers is passed on in its words; requests must stay below the deployments' bases.
    const target: Target = {
      url: suite.aiGateway.service.url,
      authorization: `Bearer ${suite.virtualKey}`,
      validParams: { id: ['fuzz-chat', 'fuzz-embed'] },
      secrets: [UPSTREAM_KEY],
      revive: () => suite.aiGateway.revive(),
    };
    expect(await stillAdmitted(target)).toEqual([]);
    expect([...(await fuzz(aiGatewayCalls(), target, undefined, suite.fake.url)), ...(await stillAdmitted(target))]).toEqual([]);
  });

  it("the AI gateway's stored resources: files, batches, vector stores, assistants, threads", async () => {
    // Creating and running record spend in the background too: the database is not compared. What
    // the provider answers is relayed in its words; requests must stay below the deployment's base.
    const target: Target = {
      url: suite.aiGateway.service.url,
      authorization: `Bearer ${suite.virtualKey}`,
      validParams: suite.ids.aiResources,
      headers: { 'x-arbor-model': RESOURCE_ALIAS },
      mutableIds: true,
      secrets: [UPSTREAM_KEY],
      revive: () => suite.aiGateway.revive(),
    };
    expect(await stillAdmitted(target)).toEqual([]);
    expect([...(await fuzz(RESOURCE_CALLS, target, undefined, suite.fake.url)), ...(await stillAdmitted(target))]).toEqual([]);
  });

  it("the AI gateway's pass-throughs: /openai/*, /anthropic/* and pass_through_endpoints stay below their base path", async () => {
    const target: Target = {
      url: suite.aiGateway.service.url,
      authorization: `Bearer ${suite.virtualKey}`,
      validParams: {},
      // SDKs send the key in other headers too (Anthropic's in x-api-key): none may reach the provider.
      headers: { 'x-api-key': suite.virtualKey, 'api-key': suite.virtualKey },
      secrets: [UPSTREAM_KEY],
      revive: () => suite.aiGateway.revive(),
    };
    expect(await stillAdmitted(target)).toEqual([]);
    expect([...(await fuzz(PASS_THROUGH_CALLS, target, undefined, suite.fake.url)), ...(await stillAdmitted(target))]).toEqual([]);
  });

  it("the MCP gateway's admin API: every operation of its OpenAPI document", async () => {
    const { mcpGateway, controlPlane } = suite;
    const operations = await documentedOperations('mcp-gateway', mcpGateway.service.url);
    expect(operations.map((operation) => operation.name)).toEqual(expect.arrayContaining(['mcp-gateway POST /api/v1/upstreams', 'mcp-gateway POST /api/v1/servers']));
    const target: Target = {
      url: mcpGateway.service.url,
      authorization: `Bearer ${controlPlane.tokens.alice}`,
      validParams: suite.ids.mcpGateway,
      revive: () => mcpGateway.revive(),
    };
    expect(await withDatabase(mcpGateway.database.url, (database) => fuzz([...operations, ...MCP_ADMIN_CALLS], target, database))).toEqual([]);
  });

  it("the gateways' admin APIs for a caller short of rights: refusals quote no more than an excerpt, and write nothing", async () => {
    // The probes (every field long, every field with a NUL) and a few random requests per operation, as bob.
    const bob = `Bearer ${suite.controlPlane.tokens.bob}`;
    const few = (operations: Operation[]) => operations.map((operation) => ({ ...operation, runs: FEW_RUNS }));
    const { aiGateway, mcpGateway } = suite;
    const failures = [
      ...(await withDatabase(aiGateway.database.url, async (database) =>
        fuzz(
          few(await documentedOperations('ai-gateway', aiGateway.service.url)),
          { url: aiGateway.service.url, authorization: bob, validParams: suite.ids.aiGateway, revive: () => aiGateway.revive() },
          database,
        ),
      )),
      ...(await withDatabase(mcpGateway.database.url, async (database) =>
        fuzz(
          few(await documentedOperations('mcp-gateway', mcpGateway.service.url)),
          { url: mcpGateway.service.url, authorization: bob, validParams: suite.ids.mcpGateway, revive: () => mcpGateway.revive() },
          database,
        ),
      )),
    ];
    expect(failures).toEqual([]);
  });

  it("the MCP gateway's MCP endpoints: Streamable HTTP (both eras), SSE, the WebSocket relay, OAuth metadata", async () => {
    const target: Target = {
      url: suite.mcpGateway.service.url,
      authorization: `Bearer ${suite.controlPlane.tokens.alice}`,
      validParams: { id: ['tools'] },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      revive: () => suite.mcpGateway.revive(),
    };
    expect(await withDatabase(suite.mcpGateway.database.url, (database) => fuzz(MCP_ENDPOINT_CALLS, target, database))).toEqual([]);
  });
});
