// `npm run bench:budgets`: spend governance under load (issue 35, "spend writes never block a call
// and never deadlock"). Two built gateway replicas share one database and, when one is reachable,
// one Redis; 200 keys in 20 projects — each project with a budget (LiteLLM's team), half the keys
// made for a person with a budget in the project, every call tagged — are called as fast as 50
// connections go for about --duration seconds (60 by default), alternating replicas and keys. While the
// load runs, the database is sampled every 250 ms for sessions waiting on a lock; afterwards the
// totals are compared to the picodollar: the calls answered against call_records, spend_daily and
// the keys' spend, and what every level (project, person, tag) counted in budget_spend against the
// calls that were its own. Budgets are set high: nothing is refused, so every call answered counts.
//
// Options: --duration <s> (60), --connections <n> (50), --redis <url> (redis://127.0.0.1:6379, or
// none), --skip-build. This is a check as well as a measure: it exits 1 when a total differs or a
// deadlock was counted. Write the figures and the machine into docs/benchmarks.md.
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { MASTER_KEY, MODEL, MESSAGES, startBenchGateway, startGatewayDependencies } from './gateway-setup.mjs';
import { build, runBenchmark } from './support.mjs';

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '50' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const DURATION = Number(options.duration);
const CONNECTIONS = Number(options.connections);
const PROJECTS = 20;
const KEYS_PER_PROJECT = 10;
const TAGS = ['batch', 'chat', 'eval'];
const cleanups = [];
const log = (line) => console.error(`[bench:budgets] ${line}`);

async function redisReachable(url) {
  if (url === 'none') return false;
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function admin(gateway, path, body) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Sessions of `database` waiting on a lock, sampled every 250 ms until stop(); and its deadlock count before and after. */
async function watchLocks(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const name = new URL(databaseUrl).pathname.slice(1);
  const deadlocks = async () => Number((await client.query('select deadlocks from pg_stat_database where datname = $1', [name])).rows[0]?.deadlocks ?? 0);
  const before = await deadlocks();
  let samples = 0;
  let waiting = 0;
  let most = 0;
  let running = true;
  const statements = new Map();
  const sampling = (async () => {
    while (running) {
      const { rows } = await client.query(
        "select left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'",
        [name],
      );
      samples += 1;
      waiting += rows.length > 0 ? 1 : 0;
      most = Math.max(most, rows.length);
      for (const row of rows) statements.set(row.query, (statements.get(row.query) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await sampling;
      const after = await deadlocks();
      await client.end();
      return { samples, samplesWithWaits: waiting, mostWaiting: most, deadlocks: after - before, statements: [...statements].map(([query, seen]) => `${seen}× ${query}`) };
    },
  };
}

async function main() {
  if (!options['skip-build']) {
    log('building the gateway…');
    build(['ai-gateway']);
  }
  const redis = (await redisReachable(options.redis)) ? options.redis : undefined;
  const { database, fake } = await startGatewayDependencies(cleanups);
  const env = { AIGW_LOG: 'warn', ...(redis ? { AIGW_REDIS_URL: redis } : {}) };
  log(`starting two gateway replicas on one database${redis ? ` and ${redis}` : ' (no Redis: each replica counts its own calls for limits; spend is the database’s)'}…`);
  const replicas = [];
  for (let index = 0; index < 2; index++) {
    // gpt-4o-mini has the gateway's built-in list price: every call costs something.
    const replica = await startBenchGateway({ databaseUrl: database.url, fakeUrl: fake.url, env, cleanups });
    cleanups.push(() => replica.stop());
    replicas.push(replica);
  }

  log(`making ${PROJECTS} projects with budgets and ${PROJECTS * KEYS_PER_PROJECT} keys, half of them a person's with a budget of their own…`);
  const keys = [];
  for (let project = 0; project < PROJECTS; project++) {
    const team = `load-${project}`;
    await admin(replicas[0], '/team/update', { team_id: team, max_budget: 1_000_000, budget_duration: '30d' });
    for (let index = 0; index < KEYS_PER_PROJECT; index++) {
      const person = index % 2 === 0 ? `person-${project}-${index}` : undefined;
      const made = await admin(replicas[project % 2], '/key/generate', { team_id: team, max_budget: 1_000_000, ...(person ? { user_id: person } : {}) });
      if (person) await admin(replicas[0], '/team/member_update', { team_id: team, user_id: person, max_budget_in_team: 1_000_000, budget_duration: '30d' });
      keys.push(made.key);
    }
  }
  // Every replica reads budget rows changed elsewhere within two seconds.
  await new Promise((resolve) => setTimeout(resolve, 2_500));

  const body = (tag) => JSON.stringify({ model: MODEL, messages: MESSAGES, metadata: { tags: [tag] } });
  let next = 0;
  // A run of `amount` calls ends when the last is answered (a run of a duration would cut the calls
  // in flight at its end off on the client's side only): so every call the gateway served is counted.
  const run = (replica, connections, amount) => {
    const instance = autocannon({
      url: `${replica.url}/v1/chat/completions`,
      method: 'POST',
      connections,
      amount,
      requests: [
        {
          setupRequest: (request) => {
            const index = next++;
            return {
              ...request,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[index % keys.length]}` },
              body: body(TAGS[index % TAGS.length]),
            };
          },
        },
      ],
    });
    return new Promise((resolve, reject) => instance.on('done', resolve).on('error', reject));
  };
  const both = (amount) =>
    Promise.all([run(replicas[0], Math.ceil(CONNECTIONS / 2), Math.ceil(amount / 2)), run(replicas[1], Math.floor(CONNECTIONS / 2), Math.floor(amount / 2))]);
  const locks = await watchLocks(database.url);
  const started = performance.now();
  // A first slice tells the rate; the rest is sized to end near --duration.
  const probe = Math.max(200, CONNECTIONS * 20);
  log(`calling for about ${DURATION} s with ${CONNECTIONS} connections over both replicas…`);
  const results = await both(probe);
  const elapsed = () => (performance.now() - started) / 1000;
  // Slices sized by the rate so far, until the duration is (nearly) spent.
  while (elapsed() < DURATION - 1) {
    const rate = results.reduce((sum, result) => sum + result.requests.total, 0) / elapsed();
    results.push(...(await both(Math.max(probe, Math.round(rate * (DURATION - elapsed()))))));
  }
  const seconds = elapsed();
  const waits = await locks.stop();
  const answered = results.reduce((sum, result) => sum + (Number(result.statusCodeStats['200']?.count) || 0), 0);
  const other = results.reduce((sum, result) => sum + result.requests.total, 0) - answered + results.reduce((sum, result) => sum + result.errors, 0);

  // Spend is written behind, once a second on each replica.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const one = async (sql) => (await client.query(sql)).rows[0];
  const records = await one('select count(*)::int as calls, coalesce(sum(cost_usd), 0)::text as cost from call_records where status = 200');
  const daily = await one('select coalesce(sum(requests), 0)::int as calls, coalesce(sum(cost_usd), 0)::text as cost from spend_daily');
  const keySpend = await one('select coalesce(sum(spend), 0)::text as cost from virtual_keys');
  const levels = await one(`
    select coalesce(sum(spend) filter (where level = 'project'), 0)::text as project,
           coalesce(sum(spend) filter (where level = 'person'), 0)::text as person,
           coalesce(sum(spend) filter (where level = 'tag:daily'), 0)::text as tag
      from budget_spend`);
  const personCalls = await one(`
    select coalesce(sum(r.cost_usd), 0)::text as cost from call_records r join virtual_keys k on k.id = r.key_id where k.user_id is not null and r.status = 200`);
  await client.end();

  const checks = [
    ['calls answered = rows of call_records', answered, records.calls],
    ['calls answered = requests of spend_daily', answered, daily.calls],
    ['cost of call_records = cost of spend_daily', records.cost, daily.cost],
    ["cost of call_records = the keys' spend", records.cost, keySpend.cost],
    ['cost of call_records = what the project budgets counted', records.cost, levels.project],
    ["cost of the people's keys' calls = what the person budgets counted", personCalls.cost, levels.person],
    ['cost of call_records = what the tags counted', records.cost, levels.tag],
  ];
  const same = (a, b) => (typeof a === 'number' ? a === b : Number(a) === Number(b) && trimmed(a) === trimmed(b));
  const lines = [
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${redis ? 'Redis shared' : 'no Redis'}, ${DURATION} s, ${CONNECTIONS} connections, ${keys.length} keys in ${PROJECTS} projects:`,
    '',
    '| check | expected | found | |',
    '|---|---:|---:|---|',
    ...checks.map(([name, expected, found]) => `| ${name} | ${expected} | ${found} | ${same(expected, found) ? 'same' : '**differs**'} |`),
    '',
    `${answered} calls answered in ${seconds.toFixed(0)} s (${(answered / seconds).toFixed(0)}/s), ${other} other answers or errors; lock waits: ${waits.samplesWithWaits} of ${waits.samples} samples saw a session waiting on a lock (at most ${waits.mostWaiting} at once); deadlocks: ${waits.deadlocks}.`,
  ];
  if (waits.statements.length > 0) lines.push('', 'Statements seen waiting on a lock:', ...waits.statements.map((line) => `- \`${line}\``));
  console.log(lines.join('\n'));
  if (checks.some(([, expected, found]) => !same(expected, found)) || waits.deadlocks > 0 || other > 0) process.exitCode = 1;
}

/** A numeric's decimal text without trailing zeros, so 1.50 and 1.5 compare equal. */
function trimmed(text) {
  return String(text).includes('.') ? String(text).replace(/0+$/, '').replace(/\.$/, '') : String(text);
}

runBenchmark(main, cleanups, log);
