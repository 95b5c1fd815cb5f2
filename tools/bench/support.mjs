// What every benchmark needs: the apps built, a database of its own on the test PostgreSQL, a
// built app as a child process, a machine token from the dev identity provider.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

export const root = path.resolve(import.meta.dirname, '../..');

/** Builds the named apps (Nx caches them when nothing changed). */
export function build(projects) {
  const nx = path.join(root, 'node_modules/.bin/nx');
  for (const project of projects) {
    const result = spawnSync(nx, ['run', `${project}:build`, '--output-style=static'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    if (result.status !== 0) throw new Error(`the build failed: run \`npx nx run ${project}:build\` to see why`);
  }
}

/** A database created for the run on `serverUrl`'s server; drop() removes it. */
export async function createDatabase(serverUrl) {
  const name = `arbor_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.end();
    },
  };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A built app (`dist/apps/<app>/main.js`) as a child process on a free port, its standard output
 * discarded as a container's would be, once it answers /healthz.
 */
export async function startBuiltApp(app, listenVariable, env, { nodeArgs = [], main = path.join(root, 'dist/apps', app, 'main.js') } = {}) {
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run without --skip-build`);
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, main], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env, [listenVariable]: `127.0.0.1:${port}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${app} did not answer /healthz within 60 s:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** A client-credentials token of a dev client (secret `dev-<client>-secret`). */
export async function machineToken(issuer, clientId) {
  const response = await fetch(`${issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:dev-${clientId}-secret`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`the dev identity provider refused the token for ${clientId}: ${JSON.stringify(body)}`);
  return body.access_token;
}

export async function serverVersion(db) {
  const { rows } = await db.query('show server_version');
  return rows[0].server_version;
}

/**
 * Runs a benchmark's `main`, then its `cleanups` newest first (stopping what it started,
 * dropping its databases) — also after a failure (exit code 1) and on Ctrl-C or SIGTERM.
 */
export function runBenchmark(main, cleanups, log) {
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => log(`cleanup: ${error.message}`));
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => cleanUp().finally(() => process.exit(130)));
  main().then(
    () => cleanUp(),
    async (error) => {
      log(error instanceof Error ? (error.stack ?? error.message) : String(error));
      await cleanUp();
      process.exitCode = 1;
    },
  );
}

/** Sends SIGTERM and resolves once the child has exited. */
export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** The floor: a proxy that forwards method, path, headers and body and pipes the answer back. */
export async function startBareProxy(upstream) {
  const script = `
    const http = require('node:http');
    const upstream = new URL(process.env.UPSTREAM);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    http.createServer((request, response) => {
      const forwarded = http.request(
        { hostname: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: request.headers, agent },
        (answer) => {
          response.writeHead(answer.statusCode, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.on('error', () => response.headersSent ? response.destroy() : response.writeHead(502).end());
      request.pipe(forwarded);
    }).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;
  const child = spawn(process.execPath, ['-e', script], { env: { UPSTREAM: upstream }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare proxy exited with ${code}`)));
    child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * `node tools/<name>/src/main.ts` on a free port (`portVariable=0`), as the tests run the tools,
 * once it prints `<name> ready at <url>`.
 */
export async function startTool(name, portVariable, env = {}) {
  const child = spawn(process.execPath, [path.join(root, 'tools', name, 'src/main.ts')], {
    env: { PATH: process.env.PATH ?? '', [portVariable]: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new RegExp(`${name} ready at (\\S+)`);
  const url = await new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = ready.exec(output);
      if (found) resolve(found[1]);
    });
  });
  return { url, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * A process's resident memory every second, labelled with the phase of the run, and the V8 heap in
 * use as the service's /metrics reports it (`arbor_nodejs_heap_size_used_bytes`): RSS keeps the
 * high-water mark of the heap V8 has grown to, while the lowest heap in use over a stretch (right
 * after a collection) is what the process actually keeps alive. Linux (/proc).
 *
 * /metrics is read every second only in the `soak` phase, which measures memory; in the others
 * every 15 s, as Prometheus would: a scrape costs the service a few milliseconds of its event loop,
 * and one a second would show up in the latency percentiles the other phases measure.
 */
export function sampleMemory(pid, url) {
  const sampler = { phase: 'start', samples: [], stop: () => clearInterval(timer) };
  let tick = 0;
  const take = () => {
    const sample = { phase: sampler.phase, rss: residentBytes(pid), heap: undefined };
    sampler.samples.push(sample);
    if (sampler.phase !== 'soak' && tick++ % PROMETHEUS_INTERVAL_S !== 0) return;
    fetch(`${url}/metrics`)
      .then((response) => response.text())
      .then((text) => {
        const found = /^arbor_nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text);
        if (found) sample.heap = Number(found[1]);
      })
      .catch(() => undefined);
  };
  const timer = setInterval(take, 1000);
  take();
  return sampler;
}

const PROMETHEUS_INTERVAL_S = 15;

function residentBytes(pid) {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

/**
 * How memory moved over `samples` (a soak): RSS by its first and last tenth (medians, at least 5
 * samples each) and the median of every tenth (a leak climbs tenth after tenth, warming up levels
 * off); the heap in use after collections as the lowest of every tenth and of each half; whether
 * memory stayed flat (see `flat`).
 */
export function memoryTrend(samples) {
  const rss = samples.map((sample) => sample.rss);
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)];
  };
  const tenth = (values, index) => values.slice(Math.floor((index * values.length) / 10), Math.floor(((index + 1) * values.length) / 10));
  const window = Math.max(5, Math.floor(rss.length / 10));
  const first = median(rss.slice(0, window));
  const last = median(rss.slice(-window));
  const tenths = Array.from({ length: 10 }, (_, index) => median(tenth(rss, index)));
  const heap = samples.map((sample) => sample.heap);
  const heapFloors = Array.from({ length: 10 }, (_, index) => {
    const values = tenth(heap, index).filter((value) => value !== undefined);
    return values.length > 0 ? Math.min(...values) : undefined;
  });
  const heapChange = heapFloors[0] && heapFloors[9] ? heapFloors[9] / heapFloors[0] - 1 : undefined;
  // By half: what stays alive (the heap's lowest point; major collections can be a minute apart,
  // so a tenth of a short soak may hold none) and the most the process held (RSS's peak).
  const halves = [samples.slice(0, Math.floor(samples.length / 2)), samples.slice(Math.floor(samples.length / 2))];
  const heapHalves = halves.map((half) => {
    const values = half.map((sample) => sample.heap).filter((value) => value !== undefined);
    return values.length > 0 ? Math.min(...values) : undefined;
  });
  const rssPeaks = halves.map((half) => Math.max(...half.map((sample) => sample.rss)));
  const heapHalvesChange = heapHalves[0] && heapHalves[1] ? heapHalves[1] / heapHalves[0] - 1 : undefined;
  const rssPeakChange = rssPeaks[1] / rssPeaks[0] - 1;
  // Flat: neither the heap that survives collections nor the memory the process needs grows by
  // more than a tenth from the first half to the second (a fall is V8 settling, not a leak). RSS
  // alone follows the heap V8 has grown to (and gives back at times), which a first-to-last
  // comparison mistakes for a trend.
  const flat = heapHalvesChange !== undefined && heapHalvesChange <= 0.1 && rssPeakChange <= 0.1;
  return {
    first,
    last,
    tenths,
    heapFloors,
    heapChange,
    heapHalves,
    heapHalvesChange,
    rssPeaks,
    rssPeakChange,
    flat,
    min: Math.min(...rss),
    max: Math.max(...rss),
    change: last / first - 1,
  };
}

/** The memory target's row text: what it is judged on, and the RSS first to last for reference. */
export function memoryVerdictText(trend) {
  const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
  const pct = (value) => (value === undefined ? '?' : `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`);
  const heap = trend.heapHalves.includes(undefined)
    ? 'heap in use not read'
    : `heap in use after collections ${mib(trend.heapHalves[0])} → ${mib(trend.heapHalves[1])} MiB (${pct(trend.heapHalvesChange)})`;
  return `${heap}, RSS peak ${mib(trend.rssPeaks[0])} → ${mib(trend.rssPeaks[1])} MiB (${pct(trend.rssPeakChange)}), first to second half; RSS first to last tenth ${mib(trend.first)} → ${mib(trend.last)} MiB (${pct(trend.change)})`;
}

/**
 * POSTs `body` to `url` every 1/`rate` s for `seconds` over a keep-alive agent, each call sent at
 * its time whether the one before has answered or not; resolves when all have answered, with
 * autocannon's `requests.total` and `statusCodeStats` for the calls it made.
 */
export async function pacedLoad(url, headers, body, rate, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const payload = Buffer.from(body);
  const statusCodeStats = {};
  const one = () =>
    new Promise((resolve) => {
      const request = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(payload.length) } }, (response) => {
        response.resume();
        response.once('end', () => {
          const counted = (statusCodeStats[response.statusCode] ??= { count: 0 });
          counted.count++;
          resolve();
        });
      });
      request.once('error', () => resolve());
      request.end(payload);
    });
  const start = performance.now();
  const calls = [];
  for (let index = 0; index < seconds * rate; index++) {
    const wait = start + (index * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    calls.push(one());
  }
  await Promise.all(calls);
  agent.destroy();
  return { requests: { total: calls.length }, statusCodeStats };
}
