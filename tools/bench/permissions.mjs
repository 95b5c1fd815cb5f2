// `npm run bench:permissions`: loads GET /api/v1/permissions/effective of the built control plane
// with a machine token, over many users and projects (10 000 users, 1 000 projects in the
// database), and prints requests per second and p50/p99 latency for a 200 answer from the
// cache, a 304 answer, and a 200 answer that needs its one database query. For comparison it
// measures two upstreams in the same run: a bare Node HTTP server answering the same JSON (what
// HTTP alone costs here) and the service's database query run straight through pg.
//
// Everything it starts is its own and stopped at the end: a database (dropped), the dev
// identity provider, the control plane as a child process. It writes no file.
//
// Options: --duration <s> (per run, default 10), --connections <n> (default 10),
// --combinations <n> (distinct questions in the cached runs, default 5000),
// --log <filter> (CP_LOG of the control plane, default its own default, info), --skip-build,
// --cpu-prof-dir <dir> (write a V8 CPU profile of the control plane there, to see where time goes),
// --runs <list> (a comma-separated subset of cached,304,uncached,http,pg; default all).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { build, createDatabase, machineToken, root, serverVersion, startBuiltApp, runBenchmark } from './support.mjs';

const require = createRequire(import.meta.url);
const { startTestPostgres } = require(path.join(root, 'libs/testing/src/jest/test-postgres.cjs'));

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    combinations: { type: 'string', default: '5000' },
    log: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'cpu-prof-dir': { type: 'string' },
    runs: { type: 'string', default: 'cached,304,uncached,http,pg' },
  },
});
const DURATION = Number(options.duration);
const CONNECTIONS = Number(options.connections);
const COMBINATIONS = Number(options.combinations);
const USERS = 10_000;
const PROJECTS = 1_000;
const PATH = '/api/v1/permissions/effective';
const RUNS = new Set(options.runs.split(',').map((run) => run.trim()));

const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];

async function main() {
  if (!options['skip-build']) {
    log('building control-plane-api (Nx caches it when nothing changed)…');
    build(['control-plane-api']);
  }
  log('starting PostgreSQL, the dev identity provider and the control plane…');
  const postgres = await startTestPostgres();
  cleanups.push(() => postgres.stop());
  const database = await createDatabase(postgres.url);
  cleanups.push(() => database.drop());

  const { startDevIdp } = await import(pathToFileURL(path.join(root, 'tools/dev-idp/src/dev-idp.ts')).href);
  const idp = await startDevIdp({ port: 0 });
  cleanups.push(() => idp.close());

  const controlPlane = await startControlPlane(database.url, idp.issuer);
  cleanups.push(() => controlPlane.stop());

  const db = new pg.Pool({ connectionString: database.url, max: CONNECTIONS });
  cleanups.push(() => db.end());
  log(`seeding ${USERS} users and ${PROJECTS} projects with grants…`);
  const seeded = await seed(db);
  log(`seeded ${seeded.grants} grants`);

  const token = () => machineToken(idp.issuer, 'ai-gateway-m2m');
  const results = [];

  // Cached runs: COMBINATIONS questions by user id (single view on a project by slug or id, the
  // workspace view, the grouped view), asked once first so that each answer and ETag is known.
  const questions = cachedQuestions(seeded);
  log(`asking ${questions.length} questions once to learn their ETags (this fills the cache)…`);
  const etags = await learnEtags(controlPlane.url, await token(), questions);

  if (RUNS.has('cached')) {
    results.push(await load('control plane, 200 from the cache', controlPlane.url, await token(), (i) => ({ path: questions[i % questions.length] }), 200));
  }
  if (RUNS.has('304')) {
    results.push(
      await load(
        'control plane, 304 (If-None-Match matches)',
        controlPlane.url,
        await token(),
        (i) => {
          const question = questions[i % questions.length];
          return { path: question, headers: { 'if-none-match': etags.get(question) } };
        },
        304,
      ),
    );
  }
  if (RUNS.has('uncached')) {
    // Every request a question never asked before (by subject and project slug), so each one
    // costs the one database query of an answer.
    let fresh = 0;
    results.push(
      await load(
        'control plane, 200 not cached (one query each)',
        controlPlane.url,
        await token(),
        () => {
          const n = fresh++;
          const user = seeded.users[n % USERS];
          const project = seeded.projects[(n * 7 + Math.floor(n / USERS) * 13) % PROJECTS];
          return { path: `${PATH}?subject=${user.subject}&project=${project.slug}` };
        },
        200,
      ),
    );
  }
  if (RUNS.has('http')) {
    const bare = await startBareServer(etags.values().next().value);
    cleanups.push(() => bare.stop());
    results.push(await load('upstream: bare Node HTTP server, same JSON', bare.url, await token(), () => ({ path: questions[0] }), 200));
  }
  if (RUNS.has('pg')) results.push(await queryLoad(db, seeded));

  printReport(results, seeded, await serverVersion(db));
}

async function startControlPlane(databaseUrl, issuer) {
  const nodeArgs = options['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options['cpu-prof-dir'])}`] : [];
  return startBuiltApp(
    'control-plane-api',
    'CP_LISTEN_ADDR',
    {
      CP_DATABASE_URL: databaseUrl,
      CP_OIDC_ISSUER_URL: issuer,
      CP_OIDC_AUDIENCE: 'control-plane',
      CP_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
      CP_SUITE_AI_GATEWAY_URL: 'http://localhost:4000',
      CP_SUITE_MCP_GATEWAY_URL: 'http://localhost:4444',
      ...(options.log ? { CP_LOG: options.log } : {}),
    },
    { nodeArgs },
  );
}

/**
 * 10 000 users (two in three with mcp-gateway besides ai-gateway at workspace level), each with
 * role keys on five projects, and 1 000 projects; written with generate_series in a few statements.
 */
async function seed(db) {
  await db.query(`insert into projects (slug, name)
    select format('bench-%s', lpad(i::text, 4, '0')), format('Bench project %s', i) from generate_series(0, ${PROJECTS - 1}) i`);
  await db.query(`insert into users (subject, email, display_name)
    select format('bench-user-%s', i), format('bench-user-%s@bench.local', i), format('Bench user %s', i) from generate_series(0, ${USERS - 1}) i`);
  await db.query(`create temporary table bench_users as
    select id, substring(subject from 12)::int as n from users where subject like 'bench-user-%'`);
  await db.query(`create temporary table bench_projects as
    select id, substring(slug from 7)::int as n from projects where slug like 'bench-%'`);
  await db.query(`insert into permission_grants (user_id, project_id, permission_key)
    select u.id, null, key from bench_users u
    cross join lateral (values ('ai-gateway'), ('mcp-gateway')) as keys (key)
    where key = 'ai-gateway' or u.n % 3 <> 0`);
  // Five distinct projects per user: offsets 0, 211, 422, 633, 844 differ modulo 1 000.
  await db.query(`insert into permission_grants (user_id, project_id, permission_key)
    select u.id, p.id, key from bench_users u
    cross join generate_series(0, 4) j
    join bench_projects p on p.n = (u.n * 7 + j * 211) % ${PROJECTS}
    cross join lateral (values (case when j % 2 = 0 then 'ai-gateway.operator' else 'ai-gateway.viewer' end), ('mcp-gateway.viewer')) as keys (key)
    where key <> 'mcp-gateway.viewer' or j = 0`);
  await db.query('analyze');
  const users = (await db.query(`select u.id, u.n, users.subject from bench_users u join users using (id) order by u.n`)).rows;
  const projects = (await db.query(`select p.id, p.n, projects.slug from bench_projects p join projects using (id) order by p.n`)).rows;
  const { rows } = await db.query('select count(*)::int as grants from permission_grants');
  return { users, projects, grants: rows[0].grants };
}

/** Distinct questions by user id, spread over all users: on a granted project by slug or id, the workspace, the grouped view. */
function cachedQuestions({ users, projects }) {
  const questions = [];
  for (let i = 0; i < COMBINATIONS; i++) {
    const user = users[Math.floor((i * USERS) / COMBINATIONS) % USERS];
    const project = projects[(user.n * 7 + (i % 5) * 211) % PROJECTS];
    const base = `${PATH}?user_id=${user.id}`;
    switch (i % 6) {
      case 0:
      case 1:
        questions.push(`${base}&project=${project.slug}`);
        break;
      case 2:
      case 3:
        questions.push(`${base}&project_id=${project.id}`);
        break;
      case 4:
        questions.push(base);
        break;
      default:
        questions.push(`${base}&group=projects`);
    }
  }
  return questions;
}

async function learnEtags(url, token, questions) {
  const etags = new Map();
  let next = 0;
  const worker = async () => {
    while (next < questions.length) {
      const question = questions[next++];
      const response = await fetch(`${url}${question}`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`${question} answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
      etags.set(question, response.headers.get('etag'));
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return etags;
}

/** One autocannon run; `next(i)` gives the i-th request's path and extra headers. */
async function load(name, url, token, next, expectedStatus) {
  let i = 0;
  const settings = (duration) => ({
    url,
    connections: CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${token}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const { path: requestPath, headers } = next(i++);
          return { ...request, path: requestPath, headers: { ...request.headers, ...headers } };
        },
      },
    ],
  });
  log(`${name}: warming up, then ${DURATION} s with ${CONNECTIONS} connections…`);
  await autocannon(settings(2));
  const result = await autocannon(settings(DURATION));
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)]));
  const unexpected = Object.entries(statuses).filter(([code]) => Number(code) !== expectedStatus);
  if (unexpected.length > 0 || result.errors > 0) {
    log(`  warning: ${name} saw statuses ${JSON.stringify(statuses)} and ${result.errors} errors`);
  }
  return {
    name,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    statuses,
  };
}

/** A bare Node HTTP server in its own process answering one answer's JSON, to show what HTTP alone costs here. */
async function startBareServer(etag) {
  const body = JSON.stringify({ user_id: '00000000-0000-4000-8000-000000000000', permissions: ['ai-gateway', 'ai-gateway.operator', 'mcp-gateway', 'mcp-gateway.viewer'] });
  const script = `
    const body = process.env.BODY;
    require('node:http').createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag: process.env.ETAG, 'cache-control': 'private, max-age=60' });
      response.end(body);
    }).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;
  const child = spawn(process.execPath, ['-e', script], { env: { BODY: body, ETAG: etag ?? '"x"' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
    child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The other upstream: the service's single-view query (a user by subject, a project by slug,
 * users + grants + projects in one statement), a named statement as the service runs it,
 * straight through pg, CONNECTIONS at a time.
 */
async function queryLoad(db, { users, projects }) {
  const sql = `select u.id, u.subject, p.id as project_id, g.key
    from users u
    left join projects p on p.slug = $2
    left join lateral (
      select permission_key as key from permission_grants where user_id = u.id and project_id is null
      union all
      select permission_key from permission_grants where user_id = u.id and project_id = p.id
    ) g on not u.disabled
    where u.subject = $1`;
  const name = 'upstream: PostgreSQL, the same query through pg';
  log(`${name}: ${DURATION} s with ${CONNECTIONS} concurrent queries…`);
  const latencies = [];
  let n = 0;
  const deadline = Date.now() + DURATION * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const i = n++;
      const started = process.hrtime.bigint();
      await db.query({ name: 'effective-permissions', text: sql, values: [users[i % USERS].subject, projects[(i * 7) % PROJECTS].slug] });
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const percentile = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { name, rps: latencies.length / seconds, p50: percentile(50), p99: percentile(99), requests: latencies.length, statuses: {} };
}

function printReport(results, seeded, postgresVersion) {
  const cpu = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const lines = [
    '',
    `date: ${new Date().toISOString()}`,
    `machine: ${os.availableParallelism()} CPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
    `node ${process.version}, PostgreSQL ${postgresVersion}`,
    `data: ${seeded.users.length} users, ${seeded.projects.length} projects, ${seeded.grants} grants; ${COMBINATIONS} distinct questions in the cached runs`,
    `load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per run after a 2 s warm-up; control plane log filter ${options.log ?? 'info (default)'}`,
    '',
    '| path | requests/s | p50 ms | p99 ms | requests | statuses |',
    '|---|---:|---:|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${Math.round(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.requests} | ${Object.entries(r.statuses)
          .map(([code, count]) => `${code}: ${count}`)
          .join(', ')} |`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

runBenchmark(main, cleanups, log);
