// `npm run bench:sync`: project changes committed through the control plane's API (POST
// /api/v1/projects as an administrator: controller, ProjectsService, one transaction with the
// project, its audit entry and its outbox row) and delivered by the built sync dispatcher to two
// local products answering 204. Two phases:
//
//   paced:   the dispatcher runs while changes are committed at --rate per second; reports the
//            commit rate reached and the commit-to-delivery latency p50/p99 over every delivery.
//   backlog: the dispatcher is stopped, --changes changes are committed as fast as the API takes
//            them (changes/s committed), then the dispatcher starts and drains them; reports the
//            drain time and deliveries per second.
//
// Latency runs from the change's time (the outbox row's created_at: now() of its transaction, so
// at or before its commit) to the moment the product receives the POST (its own clock, the same
// machine's). A delivery is one change reaching one product; the dispatcher may coalesce many
// into one call. For comparison, the same two products POSTed directly by this process, one
// change per call: at --rate per second (latency of the call) and as fast as one call at a time
// per product goes (what a dispatcher without coalescing could reach at best).
//
// Everything it starts is its own and stopped at the end: a database (dropped), the dev identity
// provider, the control plane, the dispatcher and the products as child processes. It writes no file.
//
// Options: --changes <n> (per phase, default 10000), --rate <n> (paced phase, default 200),
// --concurrency <n> (API calls in flight in the backlog phase, default 16), --direct <n> (changes
// in the direct paced run, default 2000), --log <filter> (CP_LOG of both services, default their
// own default, info), --skip-build.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { build, createDatabase, machineToken, root, serverVersion, startBuiltApp, runBenchmark } from './support.mjs';

const require = createRequire(import.meta.url);
const { startTestPostgres } = require(path.join(root, 'libs/testing/src/jest/test-postgres.cjs'));

const { values: options } = parseArgs({
  options: {
    changes: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '16' },
    direct: { type: 'string', default: '2000' },
    log: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'products-child': { type: 'boolean', default: false },
  },
});
const CHANGES = Number(options.changes);
const RATE = Number(options.rate);
const CONCURRENCY = Number(options.concurrency);
const DIRECT = Number(options.direct);
const PRODUCTS = ['ai-gateway', 'mcp-gateway'];
const SYNC_PATH = '/api/v1/sync/control-plane/projects';

const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];
const now = () => performance.timeOrigin + performance.now();

// The products run in a child process of their own, so their receipt times do not wait for this
// process's load generation: two HTTP servers answering 204 and recording when each slug came.
if (options['products-child']) {
  const http = await import('node:http');
  const received = [];
  let calls = 0;
  let unauthenticated = 0;
  const ports = {};
  for (const product of PRODUCTS) {
    const server = http.createServer((request, response) => {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        const at = now();
        calls++;
        if (!/^Bearer .+/.test(request.headers.authorization ?? '')) unauthenticated++;
        for (const slug of JSON.parse(Buffer.concat(chunks).toString()).slugs) received.push([product, slug, at]);
        response.writeHead(204).end();
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports[product] = server.address().port;
  }
  process.on('message', (message) => {
    if (message === 'count') process.send({ count: received.length });
    if (message === 'report') process.send({ received: received.splice(0), calls, unauthenticated }, () => (calls = 0));
  });
  process.send({ ports });
} else {
  runBenchmark(main, cleanups, log);
}

async function main() {
  if (!options['skip-build']) {
    log('building control-plane-api and sync-dispatcher (Nx caches them when nothing changed)…');
    build(['control-plane-api', 'sync-dispatcher']);
  }
  log('starting PostgreSQL, the dev identity provider, two products and the control plane…');
  const postgres = await startTestPostgres();
  cleanups.push(() => postgres.stop());
  const database = await createDatabase(postgres.url);
  cleanups.push(() => database.drop());
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  cleanups.push(() => db.end());

  const { startDevIdp } = await import(pathToFileURL(path.join(root, 'tools/dev-idp/src/dev-idp.ts')).href);
  const idp = await startDevIdp({ port: 0 });
  cleanups.push(() => idp.close());

  const products = await startProducts();
  cleanups.push(() => products.stop());

  const controlPlane = await startApp('control-plane-api', 'CP_LISTEN_ADDR', {
    CP_DATABASE_URL: database.url,
    CP_OIDC_ISSUER_URL: idp.issuer,
    CP_OIDC_AUDIENCE: 'control-plane',
    CP_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
    CP_SUITE_AI_GATEWAY_URL: 'http://localhost:4000',
    CP_SUITE_MCP_GATEWAY_URL: 'http://localhost:4444',
  });
  cleanups.push(() => controlPlane.stop());
  const dispatcherEnv = {
    CP_DATABASE_URL: database.url,
    CP_OIDC_ISSUER_URL: idp.issuer,
    CP_M2M_CLIENT_ID: 'control-plane-m2m',
    CP_M2M_CLIENT_SECRET: 'dev-control-plane-m2m-secret',
    CP_AI_GATEWAY_API_URL: products.urls['ai-gateway'],
    CP_MCP_GATEWAY_API_URL: products.urls['mcp-gateway'],
  };
  const admin = adminTokens(idp.issuer);
  const results = {};

  // Paced: the dispatcher runs while changes come at RATE per second.
  let dispatcher = await startApp('sync-dispatcher', 'CP_DISPATCHER_LISTEN_ADDR', dispatcherEnv);
  cleanups.push(() => dispatcher.stop());
  log(`paced: ${CHANGES} changes at ${RATE}/s through POST /api/v1/projects, delivered as they come…`);
  const paced = await commitChanges(controlPlane.url, admin, 'paced', { rate: RATE });
  await products.waitFor(CHANGES * PRODUCTS.length, 60_000);
  const pacedReport = await products.report();
  results.paced = { ...paced, ...deliveryFigures(pacedReport, await changeTimes(db, 'paced')) };

  // Backlog: changes pile up while the dispatcher is stopped, then it drains them.
  await dispatcher.stop();
  log(`backlog: ${CHANGES} changes as fast as the API takes them (${CONCURRENCY} in flight), the dispatcher stopped…`);
  const backlog = await commitChanges(controlPlane.url, admin, 'backlog', { concurrency: CONCURRENCY });
  log('backlog: starting the dispatcher and draining…');
  const drainStarted = now();
  dispatcher = await startApp('sync-dispatcher', 'CP_DISPATCHER_LISTEN_ADDR', dispatcherEnv);
  const ready = now();
  await products.waitFor(CHANGES * PRODUCTS.length, 120_000);
  const backlogReport = await products.report();
  const last = Math.max(...backlogReport.received.map(([, , at]) => at));
  const first = Math.min(...backlogReport.received.map(([, , at]) => at));
  results.backlog = {
    ...backlog,
    ...deliveryFigures(backlogReport, await changeTimes(db, 'backlog')),
    drainFromStart: (last - drainStarted) / 1000,
    drainFromReady: (last - ready) / 1000,
    drainFromFirst: (last - first) / 1000,
  };
  await dispatcher.stop();

  // The products POSTed directly, one change per call.
  const token = await machineToken(idp.issuer, 'control-plane-m2m');
  log(`direct: ${DIRECT} changes at ${RATE}/s, each POSTed to both products…`);
  results.directPaced = await directPosts(products, token, DIRECT, { rate: RATE });
  log(`direct: ${CHANGES} changes POSTed to both products, one call at a time per product…`);
  results.directSerial = await directPosts(products, token, CHANGES, {});
  await products.report();

  printReport(results, await serverVersion(db));
}
function startApp(app, listenVariable, env) {
  return startBuiltApp(app, listenVariable, { ...env, ...(options.log ? { CP_LOG: options.log } : {}) });
}

async function startProducts() {
  const child = fork(import.meta.filename, ['--products-child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { ports } = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the products exited with ${code}`)));
    child.once('message', resolve);
  });
  const ask = (question) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send(question);
    });
  return {
    urls: Object.fromEntries(PRODUCTS.map((product) => [product, `http://127.0.0.1:${ports[product]}`])),
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { count: received } = await ask('count');
        if (received >= count) return;
        if (Date.now() > deadline) throw new Error(`only ${received} of ${count} deliveries arrived within ${timeoutMs / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    report: () => ask('report'),
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** The admin's token from the dev-cli password grant, renewed well before its 300 s run out. */
function adminTokens(issuer) {
  let current;
  return async () => {
    if (!current || Date.now() > current.renewAt) {
      const response = await fetch(`${issuer}/protocol/openid-connect/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', client_id: 'dev-cli', username: 'admin', password: 'admin', scope: 'openid' }),
      });
      const body = await response.json();
      if (!response.ok) throw new Error(`the dev identity provider refused the admin token: ${JSON.stringify(body)}`);
      current = { token: body.access_token, renewAt: Date.now() + 120_000 };
    }
    return current.token;
  };
}

/**
 * CHANGES projects created through the API, `bench-<phase>-<i>`: at `rate` per second (each call
 * sent at its time, however many are in flight) or `concurrency` calls in flight as fast as they go.
 */
async function commitChanges(url, token, phase, { rate, concurrency }) {
  let failures = 0;
  const create = async (i) => {
    const response = await fetch(`${url}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: `bench-${phase}-${i}`, name: `Bench ${phase} ${i}` }),
    });
    await response.arrayBuffer();
    if (response.status !== 201) failures++;
  };
  await token();
  const started = now();
  if (rate) {
    const calls = [];
    for (let i = 0; i < CHANGES; i++) {
      const wait = started + (i * 1000) / rate - now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      calls.push(create(i));
    }
    await Promise.all(calls);
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < CHANGES) await create(next++);
      }),
    );
  }
  const seconds = (now() - started) / 1000;
  if (failures > 0) throw new Error(`${failures} of ${CHANGES} project creations did not answer 201`);
  return { committed: CHANGES, commitSeconds: seconds, commitRate: CHANGES / seconds };
}

/** The time of each change of a phase, by its slug: the outbox row's created_at in ms since the epoch. */
async function changeTimes(db, phase) {
  const { rows } = await db.query(
    `select payload -> 'slugs' ->> 0 as slug, extract(epoch from created_at) * 1000 as at from outbox_events where payload -> 'slugs' ->> 0 like $1`,
    [`bench-${phase}-%`],
  );
  return new Map(rows.map((row) => [row.slug, Number(row.at)]));
}

function deliveryFigures({ received, calls, unauthenticated }, times) {
  const latencies = received.map(([, slug, at]) => at - times.get(slug)).sort((a, b) => a - b);
  const seen = new Set(received.map(([product, slug]) => `${product} ${slug}`));
  const first = Math.min(...received.map(([, , at]) => at));
  const last = Math.max(...received.map(([, , at]) => at));
  return {
    deliveries: received.length,
    distinct: seen.size,
    calls,
    unauthenticated,
    deliveryRate: received.length / ((last - first) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1),
  };
}

/** Each change POSTed to both products by this process, one change per call, with a kept-alive connection per product. */
async function directPosts(products, token, count, { rate }) {
  const latencies = [];
  const post = async (product, i) => {
    const started = now();
    const response = await fetch(`${products.urls[product]}${SYNC_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slugs: [`direct-${i}`] }),
    });
    await response.arrayBuffer();
    if (response.status !== 204) throw new Error(`${product} answered ${response.status}`);
    latencies.push(now() - started);
  };
  const started = now();
  if (rate) {
    const calls = [];
    for (let i = 0; i < count; i++) {
      const wait = started + (i * 1000) / rate - now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      calls.push(...PRODUCTS.map((product) => post(product, i)));
    }
    await Promise.all(calls);
  } else {
    await Promise.all(
      PRODUCTS.map(async (product) => {
        for (let i = 0; i < count; i++) await post(product, i);
      }),
    );
  }
  const seconds = (now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { deliveries: latencies.length, seconds, deliveryRate: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function printReport({ paced, backlog, directPaced, directSerial }, postgresVersion) {
  const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const ms = (value) => value.toFixed(1);
  const n = (value) => Math.round(value).toLocaleString('en-US').replace(/,/g, ' ');
  const check = (ok) => (ok ? 'met' : 'MISSED');
  const complete = (r) => (r.distinct === CHANGES * PRODUCTS.length ? 'all' : `only ${r.distinct} of ${CHANGES * PRODUCTS.length}`);
  const lines = [
    '',
    `date: ${new Date().toISOString()}`,
    `machine: ${os.availableParallelism()} CPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
    `node ${process.version}, PostgreSQL ${postgresVersion}; log filters ${options.log ?? 'info (default)'}`,
    '',
    '| run | changes/s committed | deliveries/s | calls | p50 ms | p99 ms | max ms | delivered |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    `| dispatcher, paced at ${RATE}/s | ${n(paced.commitRate)} | ${n(paced.deliveryRate)} | ${n(paced.calls)} | ${ms(paced.p50)} | ${ms(paced.p99)} | ${ms(paced.max)} | ${complete(paced)} |`,
    `| dispatcher, backlog of ${n(CHANGES)} | ${n(backlog.commitRate)} | ${n(backlog.deliveryRate)} | ${n(backlog.calls)} | — | — | — | ${complete(backlog)} |`,
    `| upstream: products POSTed directly at ${RATE}/s, one change per call | | ${n(directPaced.deliveryRate)} | ${n(directPaced.deliveries)} | ${ms(directPaced.p50)} | ${ms(directPaced.p99)} | | |`,
    `| upstream: products POSTed directly, one call at a time per product | | ${n(directSerial.deliveryRate)} | ${n(directSerial.deliveries)} | ${ms(directSerial.p50)} | ${ms(directSerial.p99)} | | |`,
    '',
    'latency of the backlog run: not meaningful (the changes waited for the dispatcher to start); see the drain time',
    `backlog drained in ${backlog.drainFromStart.toFixed(2)} s from starting the dispatcher (${backlog.drainFromReady.toFixed(2)} s from its /healthz, ${backlog.drainFromFirst.toFixed(2)} s from the first delivery)`,
    `calls without a bearer token: ${paced.unauthenticated + backlog.unauthenticated}`,
    `targets: paced p50 < 50 ms ${check(paced.p50 < 50)}, p99 < 250 ms ${check(paced.p99 < 250)}, commit rate ≥ ${RATE}/s ${check(paced.commitRate >= RATE * 0.98)}; backlog drained < 30 s ${check(backlog.drainFromStart < 30)}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}
