// `npm run bench:gateway`: what the AI gateway adds to a chat completion, to an Anthropic
// Messages call (family B: passed through to an Anthropic alias, and bridged to an OpenAI alias
// through chat completions) and to a Responses API call (passed through to an OpenAI alias,
// bridged to a Claude alias, and a turn continuing a stored response by previous_response_id),
// against two baselines measured in the same run on the same machine: the fake upstream called
// directly (OpenAI's chat completions and responses, Anthropic's messages), and a
// bare Node.js proxy in front of it (http.request over a keep-alive agent, bytes piped, nothing
// parsed), the floor any proxy pays. The gateway is the built one, called with a virtual key that
// has rpm, tpm and budget limits (set high, so the checks run and never refuse) and whose spend
// is recorded, as in production. For plain and streamed (`stream: true`) calls it reports:
//
//   throughput: requests/s and p50/p99 with --connections (50) connections, as fast as they go,
//               and the CPU time the serving process (fake, proxy or gateway) spent per call;
//   paced:      p50/p99 at a steady --rate (200) requests/s, and what the gateway adds to the
//               direct call; for streamed calls also the time to the first chunk (first body byte);
//   memory:     the gateway's RSS (and V8 heap in use, from its /metrics), sampled every second over the whole run, and over a --soak run
//               (plain and streamed calls alternating with --connections connections).
//
// The three paths take turns: each run is cut into --rounds slices (5 of 2 s by default), the
// paths measured one slice each in turn (the order rotating from round to round) and each path's
// slices added up. This machine's speed drifts from minute to minute; measured one after another,
// a path that fell in a slow minute would look slower than the path before it.
//
// The throughput runs use autocannon; latencies are each response's own time as a float
// (autocannon's histogram keeps whole milliseconds only, too coarse for a 1 ms target). The paced
// runs use a small client of this file that sends each call at its time (every 1/rate s) over a
// keep-alive agent: autocannon's rate option sends each second's quota at the start of the
// second, which measures a burst, not a steady rate.
//
// Everything it starts is its own and stopped at the end: a database (dropped), the fake
// providers, the bare proxy and the gateway as child processes, a config file in a temporary
// directory (removed). It writes no other file. Linux only: CPU time and memory come from /proc.
//
// Options: --duration <s> (per run, default 10), --rounds <n> (slices it is cut into, default 5),
// --connections <n> (default 50), --rate <n>
// (paced runs, default 200), --soak <s> (default 30; 600 for the 10-minute memory target),
// --log <filter> (AIGW_LOG of the gateway, default its own default, info), --skip-build,
// --baseline <main.js> (another build of the gateway, an earlier commit's, measured on chat
// completions in the same run: before and after a change, side by side),
// --cpu-prof-dir <dir> (write a V8 CPU profile of the gateway there, to see where time goes),
// --only <families> (a comma-separated choice of chat, messages, responses; default all three),
// --warm-up <s> (load on each path before it is measured, default 10: a freshly started gateway's
// CPU per call falls for about 8 s of load while V8 compiles its hot code, the bare proxy's for
// about 4 s; measured earlier, a long-running process would be judged by its first seconds).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { CLAUDE, chatBody, createLimitedKey, MASTER_KEY, MESSAGES, MODEL, startBenchGateway, startGatewayDependencies, UPSTREAM_KEY } from './gateway-setup.mjs';
import { build, createDatabase, memoryTrend, memoryVerdictText, sampleMemory, serverVersion, runBenchmark, startBareProxy } from './support.mjs';

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rate: { type: 'string', default: '200' },
    soak: { type: 'string', default: '30' },
    log: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'cpu-prof-dir': { type: 'string' },
    baseline: { type: 'string' },
    only: { type: 'string', default: 'chat,messages,responses' },
    'warm-up': { type: 'string', default: '10' },
  },
});
const FAMILIES = new Set(options.only.split(',').map((name) => name.trim()));
const DURATION = Number(options.duration);
const ROUNDS = Math.max(1, Math.round(Number(options.rounds)));
const CONNECTIONS = Number(options.connections);
const RATE = Number(options.rate);
const SOAK = Number(options.soak);
// Enough connections that a paced call never waits for a free one.
const PACED_SOCKETS = 64;
const WARM_UP_S = Number(options['warm-up']);
const ANTHROPIC_VERSION = '2023-06-01';

const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];

async function main() {
  if (!options['skip-build']) {
    log('building ai-gateway (Nx caches it when nothing changed)…');
    build(['ai-gateway']);
  }
  log('starting PostgreSQL, the fake providers, the bare proxy and the gateway…');
  const { postgres, database, fake } = await startGatewayDependencies(cleanups);
  const proxy = await startBareProxy(fake.url);
  cleanups.push(() => proxy.stop());
  const gateway = await startGateway(database.url, fake.url);
  cleanups.push(() => gateway.stop());
  // A database of its own: an earlier build must not meet the tables a later one migrated (money
  // columns changed type), nor the later one an earlier schema.
  const baselineDatabase = options.baseline ? await createDatabase(postgres.url) : undefined;
  if (baselineDatabase) cleanups.push(() => baselineDatabase.drop());
  const baseline = baselineDatabase ? await startGateway(baselineDatabase.url, fake.url, path.resolve(options.baseline)) : undefined;
  if (baseline) cleanups.push(() => baseline.stop());
  const memory = sampleMemory(gateway.pid, gateway.url);
  cleanups.push(async () => memory.stop());
  // The baseline is sampled alike, though its memory is not reported: a sampler reads /proc and
  // scrapes /metrics, and a slot that alone paid for that measured slower than the other.
  const baselineMemory = baseline ? sampleMemory(baseline.pid, baseline.url) : undefined;
  if (baselineMemory) cleanups.push(async () => baselineMemory.stop());
  const phase = (name) => {
    memory.phase = name;
    // (The soak loads this build alone: the idle baseline is scraped as rarely as in the other phases.)
    if (baselineMemory) baselineMemory.phase = name === 'soak' ? 'idle' : name;
  };

  const key = await createLimitedKey(gateway.url);
  const baselineKey = baseline ? await createLimitedKey(baseline.url) : undefined;
  const chat = (name, server, path, authorization) => ({
    name,
    family: 'A',
    url: server.url,
    pid: server.pid,
    path,
    headers: { authorization },
    body: (stream) => chatBody(stream),
  });
  const messages = (name, server, path, apiKey, model) => ({
    name,
    family: 'B',
    url: server.url,
    pid: server.pid,
    path,
    headers: { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION },
    body: (stream) => messagesBody(model, stream),
  });
  const responses = (name, server, path, authorization, model, extra = {}) => ({
    name,
    family: 'R',
    url: server.url,
    pid: server.pid,
    path,
    headers: { authorization },
    body: (stream) => responsesBody(model, stream, extra),
  });
  // The turn continues a stored response of the same deployment: one indexed read, and the upstream's own id sent on.
  const previous = FAMILIES.has('responses') ? await storedResponse(gateway.url, key.key) : undefined;
  // The direct calls are the baselines of the families' other paths: each is measured when its family is.
  const targets = [
    ...(FAMILIES.has('chat') || FAMILIES.has('messages') ? [chat(DIRECT, fake, '/openai/v1/chat/completions', `Bearer ${UPSTREAM_KEY}`)] : []),
    ...(FAMILIES.has('chat')
      ? [
          chat(PROXY, proxy, '/openai/v1/chat/completions', `Bearer ${UPSTREAM_KEY}`),
          chat(GATEWAY, gateway, '/v1/chat/completions', `Bearer ${key.key}`),
          ...(baseline ? [chat(BASELINE, baseline, '/v1/chat/completions', `Bearer ${baselineKey.key}`)] : []),
        ]
      : []),
    ...(FAMILIES.has('messages') || FAMILIES.has('responses') ? [messages(DIRECT_B, fake, '/anthropic/v1/messages', UPSTREAM_KEY, CLAUDE)] : []),
    ...(FAMILIES.has('messages')
      ? [
          messages(PROXY_B, proxy, '/anthropic/v1/messages', UPSTREAM_KEY, CLAUDE),
          messages(GATEWAY_B, gateway, '/v1/messages', key.key, CLAUDE),
          messages(BRIDGED_B, gateway, '/v1/messages', key.key, MODEL),
        ]
      : []),
    ...(previous
      ? [
          responses(DIRECT_R, fake, '/openai/v1/responses', `Bearer ${UPSTREAM_KEY}`, MODEL),
          responses(PROXY_R, proxy, '/openai/v1/responses', `Bearer ${UPSTREAM_KEY}`, MODEL),
          responses(GATEWAY_R, gateway, '/v1/responses', `Bearer ${key.key}`, MODEL),
          responses(BRIDGED_R, gateway, '/v1/responses', `Bearer ${key.key}`, CLAUDE),
          responses(TURN_R, gateway, '/v1/responses', `Bearer ${key.key}`, MODEL, { previous_response_id: previous }),
        ]
      : []),
  ];
  for (const target of targets) for (const stream of [false, true]) await checkAnswers(target, stream);

  const throughput = [];
  const paced = [];
  for (const stream of [false, true]) {
    phase('throughput');
    throughput.push(...(await load(targets, stream, { connections: CONNECTIONS })));
    phase('paced');
    paced.push(...(await pacedRun(targets, stream)));
  }
  phase('soak');
  const soak = await soakRun(targets.find((target) => target.name === GATEWAY) ?? targets.find((target) => target.url === gateway.url), memory);
  const spend = await keySpend(gateway.url, key.id);
  printReport({ throughput, paced, soak, memory: memory.samples, spend, postgresVersion: await postgresVersion(database.url) });
}

// The paths measured, by name.
const DIRECT = 'direct: fake upstream';
const PROXY = 'bare Node proxy';
const GATEWAY = 'AI gateway';
const BASELINE = 'AI gateway, baseline build';
const DIRECT_B = 'messages, direct: fake Anthropic';
const PROXY_B = 'messages, bare Node proxy';
const GATEWAY_B = 'messages, AI gateway, Anthropic alias (passed through)';
const BRIDGED_B = 'messages, AI gateway, OpenAI alias (bridged)';
const DIRECT_R = 'responses, direct: fake OpenAI';
const PROXY_R = 'responses, bare Node proxy';
const GATEWAY_R = 'responses, AI gateway, OpenAI alias (passed through)';
const BRIDGED_R = 'responses, AI gateway, Claude alias (bridged)';
const TURN_R = 'responses, AI gateway, previous_response_id turn';

/** The built gateway (or the build at `main`), profiled when --cpu-prof-dir says so. */
function startGateway(databaseUrl, fakeUrl, main) {
  const nodeArgs = options['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options['cpu-prof-dir'])}`] : [];
  return startBenchGateway({ databaseUrl, fakeUrl, main, nodeArgs, log: options.log, cleanups });
}

/** The same conversation as a Responses request (its system prompt as instructions), with `extra` fields. */
function responsesBody(model, stream, extra) {
  const [system, user] = MESSAGES;
  return JSON.stringify({ model, instructions: system.content, input: user.content, ...extra, ...(stream ? { stream: true } : {}) });
}

/** A response stored by the gateway, for the turn that continues it. */
async function storedResponse(gatewayUrl, apiKey) {
  const response = await fetch(`${gatewayUrl}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: responsesBody(MODEL, false, {}),
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`the gateway refused the first response: ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}

/** The same conversation as a Messages request (its system prompt apart, max_tokens required). */
function messagesBody(model, stream) {
  const [system, ...messages] = MESSAGES;
  return JSON.stringify({ model, max_tokens: 256, system: system.content, messages, ...(stream ? { stream: true } : {}) });
}

function requestHeaders(target) {
  return { ...target.headers, 'content-type': 'application/json' };
}

/** One call of each kind before measuring, so that a broken path fails the run instead of measuring errors. */
async function checkAnswers(target, stream) {
  const response = await fetch(`${target.url}${target.path}`, { method: 'POST', headers: requestHeaders(target), body: target.body(stream) });
  const text = await response.text();
  const complete =
    target.family === 'B'
      ? stream
        ? 'event: message_stop'
        : '"type":"message"'
      : target.family === 'R'
        ? stream
          ? 'event: response.completed'
          : '"object":"response"'
        : stream
          ? 'data: [DONE]'
          : '"chat.completion"';
  if (response.status !== 200 || !text.includes(complete)) {
    throw new Error(`${target.name} (${stream ? 'streamed' : 'plain'}) answered ${response.status}: ${text.slice(0, 500)}`);
  }
}

/**
 * The targets in turns (see the top of this file): each warmed up, then ROUNDS slices of
 * DURATION / ROUNDS seconds each with autocannon; latencies from each response's own time.
 */
async function load(targets, stream, settings) {
  const kind = stream ? 'streamed' : 'plain';
  const run = (target, duration, latencies) => {
    const instance = autocannon({
      url: `${target.url}${target.path}`,
      method: 'POST',
      headers: requestHeaders(target),
      body: target.body(stream),
      duration,
      ...settings,
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === 200) latencies.push(responseTime);
    });
    return instance;
  };
  log(`${kind}: ${targets.map((t) => t.name).join(', ')} in turns, ${DURATION} s each in ${ROUNDS} slices with ${settings.connections} connections as fast as they go…`);
  for (const target of targets) await run(target, WARM_UP_S, []);
  const measured = targets.map(() => ({ latencies: [], seconds: 0, requests: 0, cpuMs: 0, statuses: {}, errors: 0, timeouts: 0, roundRps: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of inTurn(targets.length, round)) {
      const target = targets[index];
      const total = measured[index];
      const cpuBefore = cpuMs(target.pid);
      const result = await run(target, DURATION / ROUNDS, total.latencies);
      total.cpuMs += cpuMs(target.pid) - cpuBefore;
      total.seconds += result.duration;
      total.requests += result.requests.total;
      total.roundRps.push(result.requests.total / result.duration);
      total.errors += result.errors;
      total.timeouts += result.timeouts;
      for (const [code, { count }] of Object.entries(result.statusCodeStats)) total.statuses[code] = (total.statuses[code] ?? 0) + Number(count);
    }
  }
  return targets.map((target, index) => {
    const total = measured[index];
    return { name: `${kind}, ${target.name}`, kind, target: target.name, cpuPerCall: total.cpuMs / total.requests, roundRps: total.roundRps, ...summary(total, total.latencies) };
  });
}

/** The median over the rounds of `a`'s throughput over `b`'s in the same round. */
function pairedRatio(a, b) {
  const ratios = a.roundRps.map((rps, round) => rps / b.roundRps[round]).sort((x, y) => x - y);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
}

/** Indexes 0…count−1 starting at `round` mod count: who goes first rotates from round to round. */
function inTurn(count, round) {
  return Array.from({ length: count }, (_, i) => (i + round) % count);
}

/** Requests/s and percentiles of runs that took `seconds` in all; `statuses` by code. */
function summary({ seconds, requests, statuses, errors, timeouts }, latencies) {
  if (Object.keys(statuses).some((code) => code !== '200') || errors > 0 || timeouts > 0) {
    log(`  warning: statuses ${JSON.stringify(statuses)}, ${errors} errors, ${timeouts} timeouts`);
  }
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests,
    statuses,
    errors,
  };
}

/** An autocannon result in the shape summary() takes. */
function autocannonTotals(result) {
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)]));
  return { seconds: result.duration, requests: result.requests.total, statuses, errors: result.errors, timeouts: result.timeouts };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * RATE calls per second, each sent at its time whatever the others are doing, over a keep-alive
 * agent per target; each timed from the moment it is sent to its first body byte and to its last.
 * The targets in turns (see the top of this file): each warmed up for two seconds, then ROUNDS
 * slices of DURATION / ROUNDS seconds each.
 */
async function pacedRun(targets, stream) {
  const kind = stream ? 'streamed' : 'plain';
  log(`${kind}: ${targets.map((t) => t.name).join(', ')} in turns, ${DURATION} s each in ${ROUNDS} slices at ${RATE} requests/s…`);
  const clients = targets.map((target) => ({
    agent: new http.Agent({ keepAlive: true, maxSockets: PACED_SOCKETS }),
    url: new URL(`${target.url}${target.path}`),
    payload: Buffer.from(target.body(stream)),
    headers: requestHeaders(target),
    timings: [],
    seconds: 0,
    failed: 0,
  }));
  const one = (client, counted) =>
    new Promise((resolve) => {
      const failed = () => {
        if (counted) client.failed++;
        resolve(undefined);
      };
      const sent = performance.now();
      const request = http.request(
        client.url,
        { method: 'POST', agent: client.agent, headers: { ...client.headers, 'content-length': String(client.payload.length) } },
        (response) => {
          let first;
          response.on('data', () => (first ??= performance.now() - sent));
          response.once('end', () => (response.statusCode === 200 ? resolve({ first, last: performance.now() - sent }) : failed()));
        },
      );
      request.once('error', failed);
      request.end(client.payload);
    });
  const paced = async (client, seconds, counted) => {
    const start = performance.now();
    const calls = [];
    for (let i = 0; i < seconds * RATE; i++) {
      const wait = start + (i * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      calls.push(one(client, counted));
    }
    const timings = (await Promise.all(calls)).filter(Boolean);
    if (counted) {
      client.timings.push(...timings);
      client.seconds += (performance.now() - start) / 1000;
    }
  };
  for (const client of clients) await paced(client, WARM_UP_S, false);
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of inTurn(targets.length, round)) await paced(clients[index], DURATION / ROUNDS, true);
  }
  return targets.map((target, index) => {
    const { agent, timings, seconds, failed } = clients[index];
    agent.destroy();
    if (failed > 0) log(`  warning: ${target.name}: ${failed} calls failed`);
    const sorted = (field) => timings.map((timing) => timing[field]).sort((a, b) => a - b);
    const last = sorted('last');
    const first = sorted('first');
    return {
      name: `${kind}, ${target.name}`,
      kind,
      target: target.name,
      rps: timings.length / seconds,
      p50: percentile(last, 50),
      p99: percentile(last, 99),
      firstP50: percentile(first, 50),
      firstP99: percentile(first, 99),
      requests: timings.length + failed,
      failed,
    };
  });
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User and system CPU time a process has used so far, in milliseconds (Linux). */
function cpuMs(pid) {
  // Fields 14 and 15 of /proc/<pid>/stat, counted after the command name in parentheses.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Plain and streamed calls alternating through the gateway for SOAK seconds; memory at its start and end. */
async function soakRun(target, memory) {
  log(`memory soak: ${SOAK} s of plain and streamed calls alternating, ${CONNECTIONS} connections…`);
  const from = memory.samples.length;
  const latencies = [];
  const instance = autocannon({
    url: `${target.url}${target.path}`,
    headers: requestHeaders(target),
    connections: CONNECTIONS,
    duration: SOAK,
    requests: [false, true].map((stream) => ({ method: 'POST', body: target.body(stream) })),
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode === 200) latencies.push(responseTime);
  });
  const result = await instance;
  return { ...summary(autocannonTotals(result), latencies), seconds: SOAK, ...memoryTrend(memory.samples.slice(from)) };
}

/** The key's spend as the gateway wrote it to its database (at most a second behind): spend tracking ran. */
async function keySpend(gatewayUrl, id) {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const response = await fetch(`${gatewayUrl}/api/v1/keys/${id}`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
  return (await response.json()).spend;
}

async function postgresVersion(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await serverVersion(client);
  } finally {
    await client.end();
  }
}

function printReport({ throughput, paced, soak, memory, spend, postgresVersion }) {
  const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : '—');
  const added = (value) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(2)}` : '—');
  const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
  const find = (rows, kind, target) => rows.find((row) => row.kind === kind && row.target === target);
  const direct = DIRECT;
  const proxy = PROXY;
  const gateway = GATEWAY;
  // What each path is measured against: family B's native path against Anthropic's direct call;
  // the bridged one against the chat completion it makes upstream.
  const baseOf = (target) =>
    target === GATEWAY_B || target === PROXY_B || target === DIRECT_B || target === BRIDGED_R
      ? DIRECT_B
      : target === GATEWAY_R || target === PROXY_R || target === DIRECT_R || target === TURN_R
        ? DIRECT_R
        : DIRECT;

  const verdict = (met) => (met ? 'met' : '**missed**');
  const targets = [];
  if (find(paced, 'plain', gateway)) reportChat();
  function reportChat() {
    for (const kind of ['plain', 'streamed']) {
      const share = find(throughput, kind, gateway).rps / find(throughput, kind, proxy).rps;
      targets.push(`| throughput ≥ 50 % of the bare proxy's, ${kind} | ${(share * 100).toFixed(0)} % | ${verdict(share >= 0.5)} |`);
    }
    for (const kind of ['plain', 'streamed']) {
      const p50 = find(paced, kind, gateway).p50 - find(paced, kind, direct).p50;
      const p99 = find(paced, kind, gateway).p99 - find(paced, kind, direct).p99;
      targets.push(`| added latency at ${RATE}/s, ${kind}: p50 ≤ 1 ms | ${added(p50)} ms | ${verdict(p50 <= 1)} |`);
      targets.push(`| added latency at ${RATE}/s, ${kind}: p99 ≤ 5 ms | ${added(p99)} ms | ${verdict(p99 <= 5)} |`);
    }
    const firstAdded = find(paced, 'streamed', gateway).firstP50 - find(paced, 'streamed', direct).firstP50;
    targets.push(`| first streamed chunk adds ≤ 2 ms p50 | ${added(firstAdded)} ms | ${verdict(firstAdded <= 2)} |`);
  }
  if (find(paced, 'plain', GATEWAY_B)) reportMessages();
  function reportMessages() {
    for (const kind of ['plain', 'streamed']) {
      const share = find(throughput, kind, GATEWAY_B).rps / find(throughput, kind, PROXY_B).rps;
      targets.push(`| messages passed through: throughput ≥ 50 % of the bare proxy's, ${kind} | ${(share * 100).toFixed(0)} % | ${verdict(share >= 0.5)} |`);
      const native = find(paced, kind, GATEWAY_B).p50 - find(paced, kind, DIRECT_B).p50;
      targets.push(`| messages passed through: added p50 at ${RATE}/s ≤ 1 ms, ${kind} | ${added(native)} ms | ${verdict(native <= 1)} |`);
      const bridged = find(paced, kind, BRIDGED_B).p50 - find(paced, kind, DIRECT).p50;
      targets.push(`| messages bridged to an OpenAI alias: added p50 at ${RATE}/s ≤ 2 ms, ${kind} | ${added(bridged)} ms | ${verdict(bridged <= 2)} |`);
    }
    for (const [target, base] of [
      [GATEWAY_B, DIRECT_B],
      [BRIDGED_B, DIRECT],
    ]) {
      const first = find(paced, 'streamed', target).firstP50 - find(paced, 'streamed', base).firstP50;
      targets.push(`| ${target}: first streamed event adds ≤ 2 ms p50 | ${added(first)} ms | ${verdict(first <= 2)} |`);
    }
  }
  if (find(paced, 'plain', GATEWAY_R)) {
    for (const kind of ['plain', 'streamed']) {
      const share = find(throughput, kind, GATEWAY_R).rps / find(throughput, kind, PROXY_R).rps;
      targets.push(`| responses passed through: throughput against the bare proxy's, ${kind} | ${(share * 100).toFixed(0)} % | (no target) |`);
      const native = find(paced, kind, GATEWAY_R).p50 - find(paced, kind, DIRECT_R).p50;
      targets.push(`| responses passed through: added p50 at ${RATE}/s ≤ 1 ms, ${kind} | ${added(native)} ms | ${verdict(native <= 1)} |`);
      const bridged = find(paced, kind, BRIDGED_R).p50 - find(paced, kind, DIRECT_B).p50;
      targets.push(`| responses bridged to a Claude alias: added p50 at ${RATE}/s ≤ 2 ms, ${kind} | ${added(bridged)} ms | ${verdict(bridged <= 2)} |`);
      const turn = find(paced, kind, TURN_R).p50 - find(paced, kind, DIRECT_R).p50;
      targets.push(`| previous_response_id turn: added p50 at ${RATE}/s ≤ 3 ms, ${kind} | ${added(turn)} ms | ${verdict(turn <= 3)} |`);
    }
  }
  if (find(paced, 'plain', BASELINE)) {
    for (const kind of ['plain', 'streamed']) {
      const share = (target) => `${((find(throughput, kind, target).rps / find(throughput, kind, proxy).rps) * 100).toFixed(0)} %`;
      const p50 = (target) => added(find(paced, kind, target).p50 - find(paced, kind, direct).p50);
      // Judged by the rounds' paired ratios: within a round the two builds ran a slice each, one
      // after the other, so a slow minute of the machine falls on both (their sums drift with it).
      const ratio = pairedRatio(find(throughput, kind, gateway), find(throughput, kind, BASELINE));
      targets.push(
        `| chat completions, ${kind}: this build against the baseline (--baseline) | throughput ${share(gateway)} against ${share(BASELINE)} of the proxy's (median of the rounds' ratios, this / baseline: ${ratio.toFixed(2)}), added p50 ${p50(gateway)} against ${p50(BASELINE)} ms | ${verdict(ratio >= 0.9)} (throughput within 10 %) |`,
      );
    }
  }
  targets.push(
    `| memory flat (±10 %) over the ${soak.seconds} s soak | ${memoryVerdictText(soak)} | ${verdict(soak.flat)}${soak.seconds < 600 ? ' (a 10-minute run needs --soak 600)' : ''} |`,
  );

  const phases = ['throughput', 'paced', 'soak'].map((phase) => {
    const values = memory.filter((sample) => sample.phase === phase).map((sample) => sample.rss);
    return values.length === 0 ? '' : `| ${phase} | ${mib(Math.min(...values))} | ${mib(Math.max(...values))} | ${mib(values.at(-1))} |`;
  });
  const pacedRow = (r) => {
    const base = find(paced, r.kind, baseOf(r.target));
    const same = r.target === base.target;
    const firstChunk = r.kind === 'streamed' ? [ms(r.firstP50), ms(r.firstP99), same ? '' : added(r.firstP50 - base.firstP50)] : ['', '', ''];
    return `| ${r.name} | ${Math.round(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${same ? '' : added(r.p50 - base.p50)} | ${same ? '' : added(r.p99 - base.p99)} | ${firstChunk.join(' | ')} |`;
  };

  const lines = [
    '',
    `date: ${new Date().toISOString()}`,
    `machine: ${os.availableParallelism()} CPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
    `node ${process.version}, PostgreSQL ${postgresVersion}; gateway log filter ${options.log ?? 'info (default)'}`,
    `${DURATION} s per path and run, in ${ROUNDS} slices taken in turns, after a ${WARM_UP_S} s warm-up; the key's spend as recorded after the run: ${typeof spend === 'number' ? spend.toFixed(6) : 'not reported'} USD`,
    '',
    `Throughput, ${CONNECTIONS} connections (autocannon); CPU ms per call: user + system time of the serving process alone (the fake; the proxy or the gateway without the fake behind it):`,
    '',
    '| path | requests/s | p50 ms | p99 ms | CPU ms per call | requests | statuses |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...throughput.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.cpuPerCall)} | ${r.requests} | ${statusText(r)} |`),
    '',
    `Paced at ${RATE} requests/s (added: against the direct call of the same kind, Anthropic's for messages passed through and responses bridged, OpenAI's chat for messages bridged, OpenAI's responses for responses passed through and the previous_response_id turn; first chunk: first body byte of a streamed answer):`,
    '',
    '| path | requests/s | p50 ms | p99 ms | added p50 ms | added p99 ms | first chunk p50 ms | first chunk p99 ms | first chunk added p50 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...paced.map(pacedRow),
    '',
    `Gateway memory (RSS, MiB; sampled every second). Soak: ${soak.seconds} s, ${Math.round(soak.rps)} requests/s, ${soak.requests} requests (${statusText(soak)}), p50 ${ms(soak.p50)} ms, p99 ${ms(soak.p99)} ms; first tenth ${mib(soak.first)}, last tenth ${mib(soak.last)}, min ${mib(soak.min)}, max ${mib(soak.max)}:`,
    '',
    '| phase | min | max | at its end |',
    '|---|---:|---:|---:|',
    ...phases.filter(Boolean),
    '',
    `Soak RSS by tenth (median of each, MiB): ${soak.tenths.map(mib).join(' → ')}`,
    '',
    `V8 heap in use after collections, by tenth of the soak (the lowest of each, MiB, from /metrics): ${soak.heapFloors.map((value) => (value === undefined ? '?' : mib(value))).join(' → ')}${soak.heapChange === undefined ? '' : ` (${soak.heapChange >= 0 ? '+' : ''}${(soak.heapChange * 100).toFixed(2)} % first to last)`}`,
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...targets,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

function statusText(result) {
  const statuses = Object.entries(result.statuses).map(([code, count]) => `${code}: ${count}`);
  return [...statuses, ...(result.errors > 0 ? [`errors: ${result.errors}`] : [])].join(', ');
}

runBenchmark(main, cleanups, log);
