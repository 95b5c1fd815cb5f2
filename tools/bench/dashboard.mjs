// `npm run bench:dashboard`: the AI gateway's dashboard summary (GET /api/v1/dashboard/summary,
// what the suite dashboard asks every product for each signed-in person) against the issue's
// target: at most 50 ms at p95 with 1 000 keys and 30 days of spend.
//
// It starts what it needs and stops it at the end, writing no file: a PostgreSQL database per
// service (the test server logic of libs/testing/src/jest/test-postgres.cjs; dropped), the dev
// identity provider (in this process), the built control plane and the built AI gateway as child
// processes. It seeds with SQL (generate_series) in the gateway's own tables: --keys (1 000) keys
// over --projects (20) projects, each with a budget, a third of them near or over it; spend_daily
// for --days (30) days, every key on three aliases and two deployments each day (--days × keys ×
// 6 rows: 180 000 by default); calls_hourly for every project and hour of those days.
//
// Two people ask, each --requests (500) times after 20 warm-up requests, one request at a time
// (the latency a person waits) and then with --concurrency (10) at once:
//   alice: ai-gateway.viewer workspace-wide: every project, the rollups read without a filter;
//   bob:   ai-gateway.viewer on five projects: the rollups read for those slugs.
// Their permissions come from the control plane through the contract client's cache (max-age 60 s),
// as in production after a person's first request.
//
// Options: --keys, --projects, --days, --requests, --concurrency, --skip-build.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { build, createDatabase, root, runBenchmark, startBuiltApp } from './support.mjs';

const require = createRequire(import.meta.url);
const { startTestPostgres } = require(path.join(root, 'libs/testing/src/jest/test-postgres.cjs'));

const { values: options } = parseArgs({
  options: {
    keys: { type: 'string', default: '1000' },
    projects: { type: 'string', default: '20' },
    days: { type: 'string', default: '30' },
    requests: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '10' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const KEYS = Number(options.keys);
const PROJECTS = Number(options.projects);
const DAYS = Number(options.days);
const REQUESTS = Number(options.requests);
const CONCURRENCY = Number(options.concurrency);
const TARGET_P95_MS = 50;
const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];

runBenchmark(main, cleanups, log);

async function main() {
  if (!options['skip-build']) {
    log('building ai-gateway and control-plane-api (Nx caches them when nothing changed)…');
    build(['ai-gateway', 'control-plane-api']);
  }
  log('starting PostgreSQL, the dev identity provider, the control plane and the AI gateway…');
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
    CP_SUITE_AI_GATEWAY_URL: 'http://localhost:4000',
    CP_LOG: 'warn',
  });
  cleanups.push(() => controlPlane.stop());
  const gatewayDatabase = await database();
  const gateway = await startBuiltApp('ai-gateway', 'AIGW_LISTEN_ADDR', {
    AIGW_DATABASE_URL: gatewayDatabase,
    AIGW_MASTER_KEY: `sk-bench-${randomBytes(8).toString('hex')}`,
    AIGW_OIDC_ISSUER_URL: idp.issuer,
    AIGW_CONTROL_PLANE_URL: controlPlane.url,
    AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
    AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
    AIGW_LOG: 'warn',
  });
  cleanups.push(() => gateway.stop());

  const slugs = Array.from({ length: PROJECTS }, (_, index) => `p${String(index + 1).padStart(3, '0')}`);
  const tokens = await people(idp.issuer, controlPlane.url, slugs);
  log(`seeding ${KEYS} keys over ${PROJECTS} projects and ${DAYS} days of spend…`);
  const rows = await seed(gatewayDatabase, slugs);
  log(`seeded: ${rows.spend} spend_daily rows, ${rows.calls} calls_hourly rows`);

  const results = [];
  for (const [person, token] of Object.entries(tokens)) {
    const ask = async () => {
      const started = performance.now();
      const response = await fetch(`${gateway.url}/api/v1/dashboard/summary`, { headers: { authorization: `Bearer ${token}` } });
      const body = await response.json();
      if (response.status !== 200 || body.tiles.length === 0) throw new Error(`${person}: ${response.status} ${JSON.stringify(body)}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 20; i += 1) await ask();
    const sequential = [];
    for (let i = 0; i < REQUESTS; i += 1) sequential.push(await ask());
    const concurrent = [];
    const began = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (concurrent.length < REQUESTS) concurrent.push(await ask());
      }),
    );
    const seconds = (performance.now() - began) / 1000;
    results.push({ person, mode: 'one at a time', ...percentiles(sequential), perSecond: REQUESTS / (sequential.reduce((a, b) => a + b, 0) / 1000) });
    results.push({ person, mode: `${CONCURRENCY} at once`, ...percentiles(concurrent), perSecond: concurrent.length / seconds });
  }

  const fixed = (n) => n.toFixed(1);
  console.log(`\nAI gateway dashboard summary: ${KEYS} keys, ${PROJECTS} projects, ${DAYS} days (${rows.spend} spend_daily rows)\n`);
  console.log('| person | requests | p50 ms | p95 ms | p99 ms | requests/s |');
  console.log('|---|---|---|---|---|---|');
  for (const result of results) {
    console.log(`| ${result.person} | ${result.mode} | ${fixed(result.p50)} | ${fixed(result.p95)} | ${fixed(result.p99)} | ${Math.round(result.perSecond)} |`);
  }
  const worst = Math.max(...results.filter((result) => result.mode === 'one at a time').map((result) => result.p95));
  console.log(`\ntarget: p95 ≤ ${TARGET_P95_MS} ms one at a time — ${worst <= TARGET_P95_MS ? 'met' : 'NOT met'} (worst p95 ${fixed(worst)} ms)`);
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** alice: viewer workspace-wide; bob: viewer on the first five projects. Their tokens. */
async function people(issuer, controlPlaneUrl, slugs) {
  const [admin, alice, bob] = await Promise.all(['admin', 'alice', 'bob'].map((name) => personToken(issuer, name)));
  for (const slug of slugs) await json(controlPlaneUrl, 'POST', '/api/v1/projects', admin, { slug, name: slug });
  const grant = async (token, grants) => {
    const { id } = await json(controlPlaneUrl, 'GET', '/api/v1/me', token);
    await json(controlPlaneUrl, 'PUT', `/api/v1/users/${id}/permissions`, admin, grants);
  };
  await grant(alice, { workspace: ['ai-gateway', 'ai-gateway.viewer'], projects: {} });
  await grant(bob, { workspace: ['ai-gateway'], projects: Object.fromEntries(slugs.slice(0, 5).map((slug) => [slug, ['ai-gateway.viewer']])) });
  return { alice, bob };
}

async function seed(url, slugs) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into virtual_keys (key_hash, key_hint, project, max_budget, spend, budget_spend)
       select encode(sha256(('bench-key-' || n)::bytea), 'hex'), 'sk-bench-…' || n, ($1::text[])[1 + n % $2], 100, 0, (n % 3) * 45
         from generate_series(1, $3) n`,
      [slugs, slugs.length, KEYS],
    );
    await client.query(
      `insert into spend_daily (day, key_id, project, alias, deployment_id, provider, requests, prompt_tokens, completion_tokens, cost_usd)
       select current_date - d, k.id, k.project, a.alias, a.alias || '-' || dep, 'openai', 10, 1000, 500, 0.01 * (1 + dep)
         from virtual_keys k, generate_series(0, $1 - 1) d, (values ('fast'), ('smart'), ('cheap')) a(alias), generate_series(0, 1) dep`,
      [DAYS],
    );
    await client.query(
      `insert into calls_hourly (hour, project, calls, errors)
       select date_trunc('hour', now()) - make_interval(hours => h), p, 100, h % 7
         from unnest($1::text[]) p, generate_series(0, $2 * 24 - 1) h`,
      [slugs, DAYS],
    );
    await client.query('analyze');
    const { rows } = await client.query('select (select count(*) from spend_daily)::int as spend, (select count(*) from calls_hourly)::int as calls');
    return rows[0];
  } finally {
    await client.end();
  }
}

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
  return text ? JSON.parse(text) : {};
}
