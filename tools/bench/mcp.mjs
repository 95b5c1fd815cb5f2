// `npm run bench:mcp`: what the MCP gateway adds to a `tools/call` of a trivial tool
// (test_simple_text of tools/mcp-everything-server: no arguments, one fixed text block back),
// against the everything server called directly, measured in the same run on the same machine.
// The gateways are the built one, twice: stateless (USE_STATEFUL_SESSIONS=false, one JSON POST
// per call over the pool's shared upstream sessions) and stateful (true: an Mcp-Session-Id per
// client, answers as SSE, an upstream session of its own), each with the everything server
// registered through MCPGW_CONFIG as the virtual server `everything`, and called with a gateway
// API key created by an operator through POST /api/v1/keys, as an agent or CI job would. Beside
// them, a bare Node proxy in front of the everything server (support.mjs: bytes piped, nothing
// parsed): what the hop alone costs on this machine, the floor under any gateway's added latency.
//
//   throughput: --clients (20) clients, each with an MCP session initialized once (reused; the
//               stateless gateway gets initialize once, then plain POSTs), calling the tool in a
//               loop as fast as it answers; requests/s, p50/p99, CPU ms per call of the gateway
//               and of the everything server. At saturation the added latency is queueing: at
//               a share of direct throughput s, each closed-loop call waits about 1/s as long;
//   paced:      the same clients on an open-loop schedule, --rate (500) calls/s between them,
//               each client at its own fixed interval (clients/rate), staggered; a call is timed
//               from when it was due, so a call held back by the previous one still out counts
//               its wait (no coordinated omission). The load below saturation the added-latency
//               target is judged at;
//   one client: as fast as it answers with a single client, the latency nothing queues behind;
//               then paired: direct, proxy and both gateways in turn, short rounds, each round's
//               p50 against the direct path's of the same round (what the one-client goal is
//               judged by: a path's p50 moves by half from one minute to the next here);
//   soak:       sessions opened and closed on both gateways at once for --soak seconds (each
//               client: initialize, --calls-per-session calls, DELETE), the gateways' RSS
//               sampled every second, compared between the first and the last tenth, and the
//               V8 heap in use after collections (the lowest of each tenth, from /metrics).
//
// The 2026-07-28 revision is measured beside them: a second everything server in that era only
// (MCP_EVERYTHING_ERA=2026-07-28, the v2 SDK) called directly and through the stateless gateway's
// virtual server `everything-2026` (the gateway reaches it in that era too): no initialize, each
// POST with the revision's `_meta` envelope and its MCP-Protocol-Version, Mcp-Method and Mcp-Name.
//
// Latencies are floats, to the last byte of the answer from the request being sent (from when it
// was due in the paced run, which also reports how late calls went out). The client is plain
// node:http with a keep-alive connection per client, lighter than the SDK's client, so that it
// takes less of the CPUs the servers measured share.
//
// Everything it starts is its own and stopped at the end: a database per gateway and one for
// the control plane (dropped), the dev identity provider (in this process), the control plane,
// the everything server and the gateways as child processes, a config file in a temporary
// directory (removed). It writes no other file. Linux only: CPU time and memory come from /proc.
//
// Options: --duration <s> (per run, default 10), --clients <n> (default 20), --rate <n> (paced
// run, calls/s in total, default 500), --soak <s> (default 30; 600 for the 10-minute memory
// target), --calls-per-session <n> (soak, default 5), --log <filter> (MCPGW_LOG, default the
// gateway's own, info), --skip-build, --cpu-prof-dir <dir> (write a V8 CPU profile of each gateway there, to see where time goes),
// --warm-up <s> (calls before each measured run, default 10: until V8 has compiled the hot code),
// --rounds <n> and --round-seconds <s> (the one-client paired rounds, default 5 of 2 s per path).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build, createDatabase, memoryTrend, memoryVerdictText, root, sampleMemory, startBareProxy, startBuiltApp, runBenchmark, startTool } from './support.mjs';

const require = createRequire(import.meta.url);
const { startTestPostgres } = require(path.join(root, 'libs/testing/src/jest/test-postgres.cjs'));

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    clients: { type: 'string', default: '20' },
    rate: { type: 'string', default: '500' },
    soak: { type: 'string', default: '30' },
    'calls-per-session': { type: 'string', default: '5' },
    log: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'cpu-prof-dir': { type: 'string' },
    'warm-up': { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    'round-seconds': { type: 'string', default: '2' },
  },
});
const DURATION = Number(options.duration);
const CLIENTS = Number(options.clients);
const RATE = Number(options.rate);
const SOAK = Number(options.soak);
const CALLS_PER_SESSION = Number(options['calls-per-session']);
// Load before measuring (--warm-up): until V8 has compiled the hot code, as in bench:gateway.
const WARM_UP_S = Number(options['warm-up']);
// One client, paired: the legacy-era paths in turn, ROUNDS times, ROUND_S seconds each.
const ROUNDS = Number(options.rounds);
const ROUND_S = Number(options['round-seconds']);
const PROJECT = 'bench';
const SERVER_ID = 'everything';
const TOOL = 'test_simple_text';
const TOOL_TEXT = 'This is a simple text response for testing.';
const PROTOCOL_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const MODERN_SERVER_ID = 'everything-2026';
const DIRECT = 'direct: everything server';
// The floor any proxy pays for the hop (tools/bench/support.mjs): bytes piped, nothing parsed.
const PROXY = 'bare Node proxy';
const MODERN_DIRECT = `${DIRECT}, ${MODERN_VERSION}`;

const LOAD_BEFORE = os.loadavg();

const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];

async function main() {
  if (!options['skip-build']) {
    log('building mcp-gateway and control-plane-api (Nx caches them when nothing changed)…');
    build(['mcp-gateway', 'control-plane-api']);
  }
  log('starting PostgreSQL, the dev identity provider, the control plane, the everything server and two gateways…');
  const postgres = await startTestPostgres();
  cleanups.push(() => postgres.stop());
  const database = async () => {
    const created = await createDatabase(postgres.url);
    cleanups.push(() => created.drop());
    return created.url;
  };

  const { startDevIdp } = await import(pathToFileURL(path.join(root, 'tools/dev-idp/src/dev-idp.ts')).href);
  const idp = await startDevIdp({ port: 0 });
  cleanups.push(() => idp.close());
  const controlPlane = await startBuiltApp('control-plane-api', 'CP_LISTEN_ADDR', {
    CP_DATABASE_URL: await database(),
    CP_OIDC_ISSUER_URL: idp.issuer,
    CP_OIDC_AUDIENCE: 'control-plane',
    CP_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
    CP_SUITE_MCP_GATEWAY_URL: 'http://localhost:4444',
    CP_LOG: 'warn',
  });
  cleanups.push(() => controlPlane.stop());
  const operator = await grantOperator(idp.issuer, controlPlane.url);

  const everything = await startTool('mcp-everything-server', 'MCP_EVERYTHING_PORT');
  cleanups.push(() => everything.stop());
  const modernEverything = await startTool('mcp-everything-server', 'MCP_EVERYTHING_PORT', { MCP_EVERYTHING_ERA: MODERN_VERSION });
  cleanups.push(() => modernEverything.stop());
  const config = writeConfig(everything.url, modernEverything.url);
  const proxy = await startBareProxy(new URL(everything.url).origin);
  cleanups.push(() => proxy.stop());

  const gateways = {};
  for (const stateful of [false, true]) {
    const gateway = await startGateway(await database(), config, idp.issuer, controlPlane.url, stateful);
    cleanups.push(() => gateway.stop());
    gateways[stateful ? 'stateful' : 'stateless'] = { ...gateway, key: await createKey(gateway.url, operator), memory: sampleMemory(gateway.pid, gateway.url) };
    cleanups.push(async () => gateways[stateful ? 'stateful' : 'stateless'].memory.stop());
  }

  const targets = [
    { name: DIRECT, url: everything.url, stateful: true, pid: everything.pid },
    { name: PROXY, url: `${proxy.url}${new URL(everything.url).pathname}`, stateful: true, pid: proxy.pid, upstreamPid: everything.pid },
    {
      name: 'gateway, stateless',
      url: `${gateways.stateless.url}/servers/${SERVER_ID}/mcp`,
      stateful: false,
      authorization: `Bearer ${gateways.stateless.key}`,
      pid: gateways.stateless.pid,
      upstreamPid: everything.pid,
    },
    {
      name: 'gateway, stateful',
      url: `${gateways.stateful.url}/servers/${SERVER_ID}/mcp`,
      stateful: true,
      authorization: `Bearer ${gateways.stateful.key}`,
      pid: gateways.stateful.pid,
      upstreamPid: everything.pid,
    },
    { name: MODERN_DIRECT, url: modernEverything.url, modern: true, pid: modernEverything.pid },
    {
      name: `gateway, stateless, ${MODERN_VERSION}`,
      url: `${gateways.stateless.url}/servers/${MODERN_SERVER_ID}/mcp`,
      modern: true,
      authorization: `Bearer ${gateways.stateless.key}`,
      pid: gateways.stateless.pid,
      upstreamPid: modernEverything.pid,
    },
  ];
  for (const target of targets) await checkAnswers(target);

  for (const gateway of Object.values(gateways)) gateway.memory.phase = 'calls';
  const results = [];
  for (const target of targets) results.push(await load(target, CLIENTS));
  const paced = [];
  for (const target of targets) paced.push(await pacedRun(target));
  for (const target of targets) results.push(await load(target, 1));
  const paired = await pairedAlone(targets.filter((target) => !target.modern));
  for (const gateway of Object.values(gateways)) gateway.memory.phase = 'soak';
  const soak = await soakRun(
    targets.filter((target) => target.name === 'gateway, stateless' || target.name === 'gateway, stateful'),
    [gateways.stateless.memory, gateways.stateful.memory],
  );
  printReport({ results, paced, paired, soak, gateways });
}

/** A person (alice) with the sign-in key and mcp-gateway.operator on the project; her token. */
async function grantOperator(issuer, controlPlaneUrl) {
  const [admin, alice] = await Promise.all([personToken(issuer, 'admin'), personToken(issuer, 'alice')]);
  const { id } = await json(controlPlaneUrl, 'GET', '/api/v1/me', alice);
  await json(controlPlaneUrl, 'POST', '/api/v1/projects', admin, { slug: PROJECT, name: 'Benchmark' });
  await json(controlPlaneUrl, 'PUT', `/api/v1/users/${id}/permissions`, admin, {
    workspace: ['mcp-gateway'],
    projects: { [PROJECT]: ['mcp-gateway.viewer', 'mcp-gateway.operator'] },
  });
  return alice;
}

/** A person's token through the dev-cli password grant (password = user name for demo users). */
async function personToken(issuer, username) {
  const response = await fetch(`${issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'dev-cli', username, password: username, scope: 'openid' }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`the dev identity provider refused the token for ${username}: ${JSON.stringify(body)}`);
  return body.access_token;
}

async function json(baseUrl, method, route, token, body) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function writeConfig(everythingUrl, modernUrl) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-mcp-'));
  cleanups.push(async () => fs.rmSync(directory, { recursive: true, force: true }));
  const config = path.join(directory, 'mcp-gateway.yaml');
  fs.writeFileSync(
    config,
    [
      'upstreams:',
      '  - name: everything',
      `    url: ${everythingUrl}`,
      `  - name: ${MODERN_SERVER_ID}`,
      `    url: ${modernUrl}`,
      'servers:',
      `  - id: ${SERVER_ID}`,
      `    project: ${PROJECT}`,
      '    name: Everything',
      '    upstreams:',
      '      - upstream: everything',
      `  - id: ${MODERN_SERVER_ID}`,
      `    project: ${PROJECT}`,
      '    name: Everything (2026-07-28)',
      '    upstreams:',
      `      - upstream: ${MODERN_SERVER_ID}`,
      '',
    ].join('\n'),
  );
  return config;
}

function startGateway(databaseUrl, config, issuer, controlPlaneUrl, stateful) {
  const nodeArgs = options['cpu-prof-dir']
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options['cpu-prof-dir'])}`, `--cpu-prof-name=mcp-gateway-${stateful ? 'stateful' : 'stateless'}.cpuprofile`]
    : [];
  return startBuiltApp(
    'mcp-gateway',
    'MCPGW_LISTEN_ADDR',
    {
      MCPGW_DATABASE_URL: databaseUrl,
      MCPGW_CONFIG: config,
      USE_STATEFUL_SESSIONS: String(stateful),
      MCPGW_OIDC_ISSUER_URL: issuer,
      MCPGW_CONTROL_PLANE_URL: controlPlaneUrl,
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
      ...(options.log ? { MCPGW_LOG: options.log } : {}),
    },
    { nodeArgs },
  );
}

async function createKey(gatewayUrl, operatorToken) {
  const created = await json(gatewayUrl, 'POST', '/api/v1/keys', operatorToken, { project: PROJECT, name: 'npm run bench:mcp' });
  return created.key;
}

/**
 * One MCP client over one keep-alive connection: initialize (and notifications/initialized) once,
 * then tools/call as often as asked; DELETE ends a stateful session.
 */
class McpClient {
  constructor(target) {
    this.target = target;
    this.url = new URL(target.url);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    this.headers = target.authorization ? { authorization: target.authorization } : {};
    this.nextId = 1;
  }

  async initialize() {
    // The 2026-07-28 revision has no initialize: every request says its version itself.
    if (this.target.modern) {
      this.headers = { ...this.headers, 'mcp-protocol-version': MODERN_VERSION };
      return;
    }
    const answer = await this.send('POST', {
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'arbor-bench-mcp', version: '1.0.0' } },
    });
    const result = answer.message?.result;
    if (answer.status !== 200 || !result) throw new Error(`${this.target.name}: initialize answered ${answer.status}: ${answer.text.slice(0, 500)}`);
    const sessionId = answer.headers['mcp-session-id'];
    if (this.target.stateful && typeof sessionId !== 'string') throw new Error(`${this.target.name}: initialize opened no session`);
    this.headers = { ...this.headers, 'mcp-protocol-version': result.protocolVersion, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
    const initialized = await this.send('POST', { jsonrpc: '2.0', method: 'notifications/initialized' });
    if (initialized.status !== 202) throw new Error(`${this.target.name}: notifications/initialized answered ${initialized.status}`);
  }

  /** One tools/call; true when it answered the tool's text. */
  async call() {
    const params = this.target.modern ? { name: TOOL, arguments: {}, _meta: MODERN_ENVELOPE } : { name: TOOL, arguments: {} };
    const answer = await this.send('POST', { jsonrpc: '2.0', id: this.nextId++, method: 'tools/call', params }, this.target.modern ? MODERN_CALL_HEADERS : undefined);
    return answer.status === 200 && answer.message?.result?.content?.[0]?.text === TOOL_TEXT;
  }

  async close() {
    if (this.headers['mcp-session-id']) await this.send('DELETE');
    this.agent.destroy();
  }

  send(method, message, extraHeaders) {
    const payload = message === undefined ? undefined : Buffer.from(JSON.stringify(message));
    const headers = {
      accept: 'application/json, text/event-stream',
      ...this.headers,
      ...extraHeaders,
      ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
    };
    return new Promise((resolve, reject) => {
      const request = http.request(this.url, { method, agent: this.agent, headers }, (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode, headers: response.headers, text, message: answerTo(message, response.headers['content-type'], text) });
        });
      });
      request.once('error', reject);
      request.end(payload);
    });
  }
}

const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'arbor-bench-mcp', version: '1.0.0' },
};
const MODERN_CALL_HEADERS = { 'mcp-method': 'tools/call', 'mcp-name': TOOL };

/** The JSON-RPC answer to `message` in a JSON body or among the events of an SSE body. */
function answerTo(message, contentType, text) {
  if (message?.id === undefined || !text) return undefined;
  try {
    if (!contentType?.startsWith('text/event-stream')) return JSON.parse(text);
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data) continue;
      const parsed = JSON.parse(data);
      if (parsed.id === message.id) return parsed;
    }
  } catch {
    // not JSON: no answer
  }
  return undefined;
}

/** One session and one call on each path before measuring, so that a broken path fails the run. */
async function checkAnswers(target) {
  const client = new McpClient(target);
  await client.initialize();
  if (!(await client.call())) throw new Error(`${target.name}: tools/call ${TOOL} did not answer "${TOOL_TEXT}"`);
  await client.close();
}

/** `clients` clients calling the tool in a loop, each as soon as its previous call has answered. */
function load(target, clients) {
  const name = `${target.name}, ${clients} client${clients === 1 ? '' : 's'}`;
  log(`${name}: warming up, then ${DURATION} s of tools/call as fast as it answers…`);
  return measure(target, name, clients, async (sessions, seconds) => {
    const latencies = [];
    let failed = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      sessions.map(async (client) => {
        while (performance.now() < end) {
          const sent = performance.now();
          const ok = await client.call().catch(() => false);
          if (ok) latencies.push(performance.now() - sent);
          else failed++;
        }
      }),
    );
    return { latencies, failed };
  });
}

/**
 * CLIENTS clients sending RATE calls/s between them on a fixed schedule (open loop): each client's
 * calls are due every CLIENTS/RATE s, the clients staggered by 1/RATE s. A call is timed from when
 * it was due, not from when it went out, so that a call held back by the client's previous one,
 * still out, counts its wait (no coordinated omission); how late it went out is kept too.
 */
function pacedRun(target) {
  const name = `${target.name}, ${CLIENTS} clients at ${RATE}/s`;
  log(`${name}: warming up, then ${DURATION} s of tools/call at ${RATE} calls/s in total…`);
  const interval = (CLIENTS * 1000) / RATE;
  return measure(target, name, CLIENTS, async (sessions, seconds) => {
    const latencies = [];
    const lateness = [];
    let failed = 0;
    const start = performance.now();
    const end = start + seconds * 1000;
    await Promise.all(
      sessions.map(async (client, index) => {
        for (let due = start + (index * 1000) / RATE; due < end; due += interval) {
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const sent = performance.now();
          lateness.push(sent - due);
          const ok = await client.call().catch(() => false);
          // A timer may fire up to a millisecond early (libuv's clock is in whole milliseconds).
          if (ok) latencies.push(performance.now() - Math.min(due, sent));
          else failed++;
        }
      }),
    );
    return { latencies, lateness, failed };
  });
}

/**
 * `clients` clients, each initialized once, driven by `drive(sessions, seconds)`: WARM_UP_S
 * seconds not counted, then DURATION seconds measured; CPU time of the serving processes over
 * the latter.
 */
async function measure(target, name, clients, drive) {
  const sessions = await Promise.all(
    Array.from({ length: clients }, async () => {
      const client = new McpClient(target);
      await client.initialize();
      return client;
    }),
  );
  await drive(sessions, WARM_UP_S);
  const cpuBefore = cpuMs(target.pid);
  const upstreamBefore = target.upstreamPid ? cpuMs(target.upstreamPid) : 0;
  const start = performance.now();
  const { latencies, lateness = [], failed } = await drive(sessions, DURATION);
  const seconds = (performance.now() - start) / 1000;
  const calls = latencies.length;
  const cpuPerCall = (cpuMs(target.pid) - cpuBefore) / calls;
  const upstreamCpuPerCall = target.upstreamPid ? (cpuMs(target.upstreamPid) - upstreamBefore) / calls : NaN;
  await Promise.all(sessions.map((client) => client.close()));
  if (failed > 0) log(`  warning: ${failed} calls failed`);
  latencies.sort((a, b) => a - b);
  lateness.sort((a, b) => a - b);
  return {
    name,
    target: target.name,
    clients,
    rps: calls / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    lateP50: percentile(lateness, 50),
    lateP99: percentile(lateness, 99),
    cpuPerCall,
    upstreamCpuPerCall,
    calls,
    failed,
  };
}

/**
 * One client on each path in turn, ROUNDS rounds of ROUND_S seconds (the order rotated each round,
 * the paths warm from the runs before): each round's p50 against the direct path's in the same
 * round, so that the machine's drift from minute to minute, which moves a path's p50 by half, falls
 * out of the difference. The first target is the direct path.
 */
async function pairedAlone(targets) {
  log(`1 client, paired: ${ROUNDS} rounds of ${ROUND_S} s on each of ${targets.length} paths in turn…`);
  const clients = await Promise.all(
    targets.map(async (target) => {
      const client = new McpClient(target);
      await client.initialize();
      return client;
    }),
  );
  const p50s = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (k + round) % targets.length;
      const latencies = [];
      const end = performance.now() + ROUND_S * 1000;
      while (performance.now() < end) {
        const sent = performance.now();
        if (await clients[i].call().catch(() => false)) latencies.push(performance.now() - sent);
      }
      latencies.sort((a, b) => a - b);
      p50s[i][round] = percentile(latencies, 50);
    }
  }
  await Promise.all(clients.map((client) => client.close()));
  return targets.map((target, i) => {
    const added = p50s[i].map((p50, round) => p50 - p50s[0][round]).sort((a, b) => a - b);
    return { target: target.name, p50s: p50s[i], added, median: percentile(added, 50) };
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Sessions opened and closed on both gateways at once for SOAK seconds, CLIENTS clients split
 * between them: initialize, CALLS_PER_SESSION calls, DELETE (stateful), again.
 */
async function soakRun(targets, samplers) {
  log(`memory soak: ${SOAK} s of sessions opened and closed on both gateways (${CLIENTS} clients, ${CALLS_PER_SESSION} calls per session)…`);
  const from = samplers.map((sampler) => sampler.samples.length);
  const counts = targets.map(() => ({ sessions: 0, calls: 0, failed: 0 }));
  const end = performance.now() + SOAK * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const which = i % targets.length;
      const count = counts[which];
      while (performance.now() < end) {
        const client = new McpClient(targets[which]);
        try {
          await client.initialize();
          for (let call = 0; call < CALLS_PER_SESSION; call++) {
            if (await client.call()) count.calls++;
            else count.failed++;
          }
          await client.close();
          count.sessions++;
        } catch {
          count.failed++;
          client.agent.destroy();
        }
      }
    }),
  );
  // Let the last second's sample in.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  return targets.map((target, index) => {
    const samples = samplers[index].samples.slice(from[index]);
    return { target: target.name, seconds: SOAK, ...counts[index], ...memoryTrend(samples) };
  });
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User and system CPU time a process has used so far, in milliseconds (Linux). */
function cpuMs(pid) {
  // Fields 14 and 15 of /proc/<pid>/stat, counted after the command name in parentheses.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The direct path a row is compared with: the everything server of the same era. */
function targetsBase(target) {
  return target.endsWith(MODERN_VERSION) ? MODERN_DIRECT : DIRECT;
}

function printReport({ results, paced, paired, soak, gateways }) {
  const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : '—');
  const added = (value) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(2)}` : '—');
  const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
  const verdict = (met) => (met ? 'met' : '**missed**');
  const direct = DIRECT;
  const find = (rows, target, clients) => rows.find((r) => r.target === target && r.clients === clients);

  const row = (rows) => (r) => {
    const baseName = targetsBase(r.target);
    const base = find(rows, baseName, r.clients);
    const same = r.target === baseName;
    const late = rows === paced ? ` ${ms(r.lateP50)} | ${ms(r.lateP99)} |` : '';
    return `| ${r.name} | ${Math.round(r.rps)} | ${same ? '' : `${((r.rps / base.rps) * 100).toFixed(0)} %`} | ${ms(r.p50)} | ${ms(r.p99)} | ${same ? '' : added(r.p50 - base.p50)} | ${same ? '' : added(r.p99 - base.p99)} |${late} ${ms(r.cpuPerCall)} | ${ms(r.upstreamCpuPerCall)} | ${r.calls}${r.failed ? `, ${r.failed} failed` : ''} |`;
  };
  const header = (late) => [
    `| path | calls/s | of direct | p50 ms | p99 ms | added p50 ms | added p99 ms |${late ? ' sent late p50 ms | sent late p99 ms |' : ''} CPU ms per call | upstream CPU ms per call | calls |`,
    `|---|---:|---:|---:|---:|---:|---:|${late ? '---:|---:|' : ''}---:|---:|---:|`,
  ];

  // The rate is below saturation only if the direct path kept up with it.
  const pacedDirect = find(paced, direct, CLIENTS);
  const keptUp = pacedDirect.rps >= 0.95 * RATE;
  const targets = [];
  // What one hop costs on this machine, whatever is behind it: the floor under the gateway's figures.
  const proxyShare = find(results, PROXY, CLIENTS).rps / find(results, direct, CLIENTS).rps;
  const alone = (target) => paired.find((row) => row.target === target);
  const proxyAlone = alone(PROXY).median;
  for (const mode of ['stateless', 'stateful']) {
    const gateway = `gateway, ${mode}`;
    const share = find(results, gateway, CLIENTS).rps / find(results, direct, CLIENTS).rps;
    const gatewayPaced = find(paced, gateway, CLIENTS);
    const addedPaced = gatewayPaced.p50 - pacedDirect.p50;
    const addedSaturated = find(results, gateway, CLIENTS).p50 - find(results, direct, CLIENTS).p50;
    const addedAlone = alone(gateway).median;
    targets.push(`| ${mode}: throughput ≥ 50 % of direct (${CLIENTS} clients as fast as it answers) | ${(share * 100).toFixed(0)} % | ${verdict(share >= 0.5)} |`);
    targets.push(
      `| ${mode}: throughput ≥ 75 % of direct (${CLIENTS} clients as fast as it answers; issue 31) | ${(share * 100).toFixed(0)} % (the bare proxy's ${(proxyShare * 100).toFixed(0)} %) | ${verdict(share >= 0.75)} |`,
    );
    targets.push(
      `| ${mode}: added latency p50 ≤ 2 ms, ${CLIENTS} clients paced at ${RATE} calls/s (${Math.round(gatewayPaced.rps)} achieved) | ${added(addedPaced)} ms | ${verdict(addedPaced <= 2)}${keptUp ? '' : ' (the direct path did not keep up with the rate: lower --rate)'} |`,
    );
    targets.push(`| ${mode}: added p50, ${CLIENTS} clients as fast as it answers (queueing at saturation; not the target) | ${added(addedSaturated)} ms | for reference |`);
    targets.push(
      `| ${mode}: added p50 ≤ 0.3 ms, 1 client as fast as it answers (nothing queued; issue 31; median of ${ROUNDS} paired rounds) | ${added(addedAlone)} ms (the bare proxy's ${added(proxyAlone)} ms, so ${added(addedAlone - proxyAlone)} ms over the hop) | ${verdict(addedAlone <= 0.3)} |`,
    );
  }
  {
    const gateway = `gateway, stateless, ${MODERN_VERSION}`;
    const share = find(results, gateway, CLIENTS).rps / find(results, MODERN_DIRECT, CLIENTS).rps;
    const addedAlone = find(results, gateway, 1).p50 - find(results, MODERN_DIRECT, 1).p50;
    targets.push(`| ${MODERN_VERSION}: added p50 ≤ 1 ms, 1 client calling in turn | ${added(addedAlone)} ms | ${verdict(addedAlone <= 1)} |`);
    targets.push(`| ${MODERN_VERSION}: throughput ≥ 60 % of direct (${CLIENTS} clients as fast as it answers) | ${(share * 100).toFixed(0)} % | ${verdict(share >= 0.6)} |`);
  }
  for (const s of soak) {
    targets.push(
      `| ${s.target.replace('gateway, ', '')}: memory flat (±10 %) over the ${s.seconds} s soak | ${memoryVerdictText(s)} | ${verdict(s.flat)}${s.seconds < 600 ? ' (a 10-minute run needs --soak 600)' : ''} |`,
    );
  }

  const memoryRows = Object.entries(gateways).map(([mode, gateway]) => {
    const phase = (name) => gateway.memory.samples.filter((sample) => sample.phase === name).map((sample) => sample.rss);
    const calls = phase('calls');
    const s = soak.find((entry) => entry.target === `gateway, ${mode}`);
    return `| ${mode} | ${mib(Math.max(...calls))} | ${s.sessions} | ${s.calls}${s.failed ? `, ${s.failed} failed` : ''} | ${mib(s.first)} | ${mib(s.last)} | ${mib(s.min)} | ${mib(s.max)} | ${added(s.change * 100)} % |`;
  });

  const lines = [
    '',
    `date: ${new Date().toISOString()}`,
    `machine: ${os.availableParallelism()} CPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
    `load average before the run ${LOAD_BEFORE.map((load) => load.toFixed(2)).join(' ')}, after ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')} (other work on the machine shows here)`,
    `node ${process.version}; gateway log filter ${options.log ?? 'info (default)'}; tool ${TOOL}; protocol ${PROTOCOL_VERSION}`,
    `${DURATION} s per run after a ${WARM_UP_S} s warm-up; each client one keep-alive connection and one session, initialized once`,
    '',
    'Added: against the direct call run the same way; CPU ms per call: user + system time of the gateway, and of the everything server behind it.',
    '',
    `${CLIENTS} clients as fast as it answers (closed loop, at saturation: the added latency is mostly queueing, each client waiting for the others):`,
    '',
    ...header(false),
    ...results.filter((r) => r.clients === CLIENTS).map(row(results)),
    '',
    `${CLIENTS} clients paced at ${RATE} calls/s in total (open loop, each client every ${((CLIENTS * 1000) / RATE).toFixed(1)} ms, staggered; each call timed from when it was due; sent late: how long after that it went out, for the timer or a previous call still out; negative when the timer fired early, and then timed from sending):`,
    '',
    ...header(true),
    ...paced.map(row(paced)),
    '',
    '1 client as fast as it answers (nothing queued behind it):',
    '',
    ...header(false),
    ...results.filter((r) => r.clients === 1).map(row(results)),
    '',
    `1 client, paired rounds: the paths in turn, ${ROUNDS} rounds of ${ROUND_S} s each; added p50 against the direct path's in the same round:`,
    '',
    '| path | added p50 ms, median of the rounds | lowest – highest | p50 ms by round |',
    '|---|---:|---:|---|',
    ...paired.slice(1).map((r) => `| ${r.target} | ${added(r.median)} | ${added(r.added[0])} – ${added(r.added[r.added.length - 1])} | ${r.p50s.map(ms).join(', ')} |`),
    `| ${paired[0].target} (the base) | | | ${paired[0].p50s.map(ms).join(', ')} |`,
    '',
    `Gateway memory (RSS, MiB, sampled every second). Soak: ${SOAK} s, both gateways at once, ${CLIENTS} clients between them, each session initialize + ${CALLS_PER_SESSION} calls + DELETE (stateful):`,
    '',
    '| gateway | max during the call runs | sessions in the soak | calls | first tenth | last tenth | min | max | change |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...memoryRows,
    '',
    'RSS by tenth of the soak (median of each, MiB):',
    '',
    ...soak.map((s) => `- ${s.target.replace('gateway, ', '')}: ${s.tenths.map(mib).join(' → ')}`),
    '',
    'V8 heap in use after collections, by tenth of the soak (the lowest of each, MiB, from /metrics; it climbs between major collections, which a tenth of a short soak may not see: the lowest of each half is the floor):',
    '',
    ...soak.map(
      (s) =>
        `- ${s.target.replace('gateway, ', '')}: ${s.heapFloors.map((value) => (value === undefined ? '?' : mib(value))).join(' → ')}` +
        (s.heapChange === undefined ? '' : ` (${added(s.heapChange * 100)} % first to last)`) +
        (s.heapHalves.includes(undefined) ? '' : `; lowest over the first half ${mib(s.heapHalves[0])}, over the second half ${mib(s.heapHalves[1])}`),
    ),
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...targets,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

runBenchmark(main, cleanups, log);
