// The official MCP conformance suite (server mode, its newest release: both the 2025-11-25 and the
// 2026-07-28 requirement sets), first against tools/mcp-everything-server directly (a server of
// each era: the default one, and one in the 2026-07-28 revision only), then through the MCP
// gateway: each registered as a virtual server of project alpha (`everything`,
// `everything-2026`), the BUILT gateway in stateful and in its default stateless mode, the BUILT
// control plane deciding access, real dev-idp tokens. The suite sends no credentials, so a small
// proxy in front of each gateway adds a real person's token — the gateway's rules stay as they
// are. The gateway must pass every check the direct run passes, except, in the stateless mode,
// the ones listed in STATELESS_CANNOT below with the reason the mode cannot honour them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  createTestDatabase,
  startBuiltService,
  startMcpEverythingServer,
  startTestControlPlane,
  testIssuer,
  type BuiltService,
  type McpEverythingProcess,
  type TestControlPlane,
  type TestDatabase,
} from '@arbor/testing';
import baselineFile from './conformance-baseline.json';
import { runConformance, type ConformanceRun } from './conformance';

/**
 * What the default (stateless) mode cannot honour for clients of the older versions, each for a
 * reason in the specification itself. The mode issues no session: the seed has "stateless JSON by
 * default; SSE streams and sessions need the setting USE_STATEFUL_SESSIONS=true", and the
 * specification makes a session optional (a server "MAY assign a session ID"). What a session
 * alone carries is then out of reach:
 *
 * - Capabilities are negotiated at `initialize` and hold for that connection ("both parties MUST
 *   only use capabilities that were successfully negotiated"); without a session no later request
 *   says which `initialize` it follows, so the gateway never knows the client offered sampling or
 *   elicitation and must not send it either (the everything server then answers as it would to a
 *   client without them). A 2026-07-28 client declares its capabilities on every request, and gets
 *   both as input-required round trips through this same gateway (its run below loses nothing).
 * - A resource update is a notification outside any request ("resources/updated" to a client that
 *   "previously subscribed"): it needs a stream that outlives the `resources/subscribe` request and
 *   is known to belong to the subscriber, which only a session's GET stream is. The mode does not
 *   advertise `resources.subscribe`; the suite calls it anyway. (On `subscriptions/listen` the
 *   revision gives that stream, and the gateway serves it.)
 * - Checks of the session id itself, and the 2025-11-25 scenario that will not start without one.
 *
 * Progress, log messages and cancellation of a request travel on its own stream and pass.
 */
const STATELESS_CANNOT: Record<string, string> = {
  'tools-call-sampling/tools-call-sampling':
    'sampling was negotiated at an initialize no later request is tied to without a session; the gateway must not use a capability it cannot know was negotiated',
  'tools-call-elicitation/tools-call-elicitation': 'as sampling: elicitation is a capability negotiated per session',
  ...Object.fromEntries(
    ['string', 'integer', 'number', 'enum', 'boolean'].map((kind) => [
      `elicitation-sep1034-defaults/elicitation-sep1034-${kind}-default`,
      'not run: the elicitation they inspect needs the capability negotiated per session',
    ]),
  ),
  ...Object.fromEntries(
    ['untitled-single', 'titled-single', 'legacy-enumnames', 'untitled-multi', 'titled-multi'].map((kind) => [
      `elicitation-sep1330-enums/elicitation-sep1330-${kind}`,
      'not run: the elicitation they inspect needs the capability negotiated per session',
    ]),
  ),
  'server-initialize/server-session-id-visible-ascii': 'not run: the mode issues no session id (optional in the specification)',
  'server-sse-multiple-streams/server-accepts-multiple-post-streams':
    'not run: the 2025-11-25 scenario stops when initialize gives no session id (its 2026-07-28 run passes through the gateway)',
  'server-sse-multiple-streams/server-sse-streams-functional': 'as server-accepts-multiple-post-streams',
  'resources-subscribe/resources-subscribe':
    'resources/updated needs a stream outliving the subscribe request and tied to the subscriber, which only a session has; subscribe is not advertised in this mode',
  'resources-unsubscribe/resources-unsubscribe': 'as resources-subscribe',
};

/** Checks the everything server itself fails, each with the reason (empty while it passes them all). */
const baseline = baselineFile as { scenario: string; check: string; status: string; reason: string }[];

/** Forwards everything to `target`, streaming both ways, with `authorization` set to `token`. */
function tokenProxy(target: string, token: () => string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const outgoing = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token()}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => res.destroy());
    res.on('close', () => outgoing.destroy());
    req.pipe(outgoing);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

async function toolNames(url: string): Promise<string[]> {
  const client = new Client({ name: 'gateway-conformance-spec', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('the MCP gateway under the official conformance suite', () => {
  let everything: McpEverythingProcess;
  let discoverFirstEverything: McpEverythingProcess;
  const databases: TestDatabase[] = [];
  let controlPlane: TestControlPlane;
  const gateways: BuiltService[] = [];
  const proxies: { url: string; server: Server }[] = [];
  let stateful: string;
  let stateless: string;

  async function startGateway(config: string, statefulSessions: boolean): Promise<string> {
    const database = await createTestDatabase();
    databases.push(database);
    const gateway = await startBuiltService('mcp-gateway', 'MCPGW_LISTEN_ADDR', {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_CONFIG: config,
      MCPGW_LOG: 'off',
      USE_STATEFUL_SESSIONS: String(statefulSessions),
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: controlPlane.url,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    });
    gateways.push(gateway);
    const proxy = await tokenProxy(gateway.url, () => controlPlane.tokens.alice);
    proxies.push(proxy);
    return proxy.url;
  }

  beforeAll(async () => {
    [everything, discoverFirstEverything] = await Promise.all([startMcpEverythingServer(), startMcpEverythingServer('2026-07-28')]);
    controlPlane = await startTestControlPlane(['alpha']);
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });

    const configDir = mkdtempSync(path.join(tmpdir(), 'mcpgw-conformance-'));
    const config = path.join(configDir, 'mcp-gateway.yaml');
    writeFileSync(
      config,
      `upstreams:
  - name: everything
    url: ${everything.url}
  - name: everything-2026
    url: ${discoverFirstEverything.url}
servers:
  - id: everything
    project: alpha
    name: Everything
    upstreams:
      - upstream: everything
  - id: everything-2026
    project: alpha
    name: Everything (2026-07-28)
    upstreams:
      - upstream: everything-2026
`,
    );
    // One after the other: on a busy machine two gateways loading at once may miss startBuiltService's 30 s.
    stateful = await startGateway(config, true);
    stateless = await startGateway(config, false);
  }, 180_000);

  afterAll(async () => {
    for (const proxy of proxies) {
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
    await Promise.all(gateways.map((gateway) => gateway.kill('SIGTERM')));
    await controlPlane?.stop();
    await everything?.stop();
    await discoverFirstEverything?.stop();
    await Promise.all(databases.map((database) => database.drop()));
  });

  /** The checks `direct` passed that `through` did not, as `key: message`. */
  function lost(direct: ConformanceRun, through: ConformanceRun): string[] {
    const passedThrough = new Set(through.passed.map((check) => check.key));
    const byKey = new Map(through.checks.map((check) => [check.key, check]));
    return direct.passed.filter((check) => !passedThrough.has(check.key)).map((check) => `${check.key}: ${byKey.get(check.key)?.message ?? 'not run'}`);
  }

  let direct: ConformanceRun;
  let directDiscoverFirst: ConformanceRun;

  it('finds the everything server passing every 2025-11-25 check, apart from the documented baseline', async () => {
    direct = await runConformance(everything.url);
    expect(direct.scenarios.length).toBeGreaterThanOrEqual(30);
    const byKey = new Map(direct.checks.map((check) => [check.key, check]));
    // A baseline entry whose check now behaves otherwise (passes, or fails differently) must go.
    expect(baseline.map((entry) => ({ ...entry, status: byKey.get(`${entry.scenario}/${entry.check}`)?.status }))).toEqual(baseline);
    const baselined = new Set(baseline.map((entry) => `${entry.scenario}/${entry.check}`));
    expect(direct.failed.filter((check) => !baselined.has(check.key)).map(({ key, status, message }) => ({ key, status, message }))).toEqual([]);
  }, 150_000);

  it('passes through the stateful gateway every 2025-11-25 check the everything server passes on its own', async () => {
    const through = await runConformance(`${stateful}/servers/everything/mcp`);
    expect(direct.passed.length).toBeGreaterThan(60);
    expect(lost(direct, through)).toEqual([]);
  }, 150_000);

  it('passes through the stateless gateway every 2025-11-25 check it can honour without a session, and only those are lost', async () => {
    const through = await runConformance(`${stateless}/servers/everything/mcp`);
    const lostLines = lost(direct, through);
    const lostKeys = lostLines.map((line) => line.slice(0, line.indexOf(': ')));
    expect(lostLines.filter((line) => !(line.slice(0, line.indexOf(': ')) in STATELESS_CANNOT))).toEqual([]);
    // Each listed difference is still one (else it must leave the list).
    expect(Object.keys(STATELESS_CANNOT).filter((key) => !lostKeys.includes(key))).toEqual([]);
  }, 150_000);

  it('passes through either gateway every 2026-07-28 check the everything server of that revision passes on its own', async () => {
    directDiscoverFirst = await runConformance(discoverFirstEverything.url, { requirements: '2026-07-28' });
    expect(directDiscoverFirst.passed.length).toBeGreaterThan(80);
    for (const gateway of [stateless, stateful]) {
      const through = await runConformance(`${gateway}/servers/everything-2026/mcp`, { requirements: '2026-07-28' });
      expect({ gateway, lost: lost(directDiscoverFirst, through) }).toEqual({ gateway, lost: [] });
    }
  }, 300_000);

  it.each([
    ['everything', 'an upstream of the older versions'],
    ['everything-2026', 'an upstream of the revision'],
  ])('tells a 2026-07-28 client on subscriptions/listen when a resource it subscribed to changes upstream (%s: %s)', async (server) => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const post = (id: number, method: string, params: Record<string, unknown>, name?: string, signal?: AbortSignal) =>
      fetch(`${stateless}/servers/${server}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name ? { 'mcp-name': name } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
        ...(signal ? { signal } : {}),
      });
    const discovered = (await (await post(1, 'server/discover', {})).json()) as { result: { capabilities: { resources?: { subscribe?: boolean } } } };
    expect(discovered.result.capabilities.resources).toEqual({ listChanged: true, subscribe: true });

    const abort = new AbortController();
    const listen = await post(2, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['test://watched-resource'] } }, undefined, abort.signal);
    const reader = listen.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    const nextMessage = async (): Promise<{ method?: string; params?: Record<string, unknown> }> => {
      for (;;) {
        const data = /^data: (.*)$/m.exec(buffered);
        if (data) {
          buffered = buffered.slice((data.index ?? 0) + data[0].length);
          return JSON.parse(data[1] ?? '') as { method?: string; params?: Record<string, unknown> };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the listen stream ended');
        buffered += decoder.decode(value, { stream: true });
      }
    };
    try {
      const subscriptionId = { 'io.modelcontextprotocol/subscriptionId': 2 };
      expect(await nextMessage()).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { resourceSubscriptions: ['test://watched-resource'] }, _meta: subscriptionId },
      });
      const changed = await post(3, 'tools/call', { name: 'update_watched_resource', arguments: {} }, 'update_watched_resource');
      expect(changed.status).toBe(200);
      await changed.text();
      expect(await nextMessage()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched-resource', _meta: subscriptionId } });
    } finally {
      abort.abort();
      await reader.cancel().catch(() => undefined);
    }
  });

  it('keeps tool names unchanged on a virtual server with one upstream (the suite would not notice a rename)', async () => {
    expect(await toolNames(`${stateful}/servers/everything/mcp`)).toEqual(await toolNames(everything.url));
  });

  it("refuses the suite without the proxy's token", async () => {
    const response = await fetch(`${gateways[0]?.url ?? ''}/servers/everything/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(401);
  });
});
