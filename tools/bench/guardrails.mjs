// `npm run bench:guardrails`: what LiteLLM's content filter (`litellm_content_filter`, every
// prebuilt pattern, MASK, `default_on`) adds to a chat completion with a 2 kB prompt, against the
// same built gateway without guardrails and the fake upstream called directly, in one run. Each
// of the three is called one call at a time (the latency nothing queues behind), in --rounds
// rounds of --calls calls taking turns, so that a slow minute of the machine falls on all three.
// The prompt holds an e-mail address and a card number, so the filter masks on every call.
//
// Everything it starts is its own and stopped at the end (a database, the fakes, two gateways,
// their config files). Options: --calls <n> (per round and path, default 1000), --rounds <n>
// (default 5), --skip-build.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { createLimitedKey, MODEL, startBenchGateway, startGatewayDependencies, UPSTREAM_KEY } from './gateway-setup.mjs';
import { build, createDatabase, runBenchmark } from './support.mjs';

const { values: options } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const CALLS = Number(options.calls);
const ROUNDS = Number(options.rounds);
const PATTERNS = [
  'us_ssn',
  'email',
  'phone',
  'us_phone',
  'credit_card',
  'visa',
  'mastercard',
  'amex',
  'discover',
  'iban',
  'ipv4',
  'ipv6',
  'aws_access_key',
  'aws_secret_key',
  'github_token',
  'slack_token',
  'private_key',
];
const GUARDRAILS = [
  'guardrails:',
  '  - guardrail_name: pii',
  '    litellm_params:',
  '      guardrail: litellm_content_filter',
  '      mode: pre_call',
  '      default_on: true',
  '      patterns:',
  ...PATTERNS.flatMap((name) => ['        - pattern_type: prebuilt', `          pattern_name: ${name}`, '          action: MASK']),
  '      blocked_words:',
  '        - keyword: top secret',
  '          action: BLOCK',
].join('\n');

/** About 2 kB of a prompt a person would write, an address and a card number in it. */
function prompt() {
  const sentence = 'Please summarise the quarterly report for the team and list the open questions from the meeting. ';
  let text = 'Reply to jane.doe@example.com; the invoice was paid with 4111 1111 1111 1111. ';
  while (text.length < 2048) text += sentence;
  return text.slice(0, 2048);
}

const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];

async function main() {
  if (!options['skip-build']) build(['ai-gateway']);
  log('starting PostgreSQL, the fake providers and two gateways (with and without guardrails)…');
  const { postgres, database, fake } = await startGatewayDependencies(cleanups);
  const plain = await startBenchGateway({ databaseUrl: database.url, fakeUrl: fake.url, cleanups });
  cleanups.push(() => plain.stop());
  const guardedDatabase = await createDatabase(postgres.url);
  cleanups.push(() => guardedDatabase.drop());
  const guarded = await startBenchGateway({ databaseUrl: guardedDatabase.url, fakeUrl: fake.url, configTail: GUARDRAILS, cleanups });
  cleanups.push(() => guarded.stop());
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: prompt() }] });
  const paths = [
    { name: 'direct: fake upstream', url: `${fake.url}/openai/v1/chat/completions`, key: UPSTREAM_KEY },
    { name: 'AI gateway', url: `${plain.url}/v1/chat/completions`, key: (await createLimitedKey(plain.url)).key },
    { name: 'AI gateway, content filter (17 prebuilt patterns, default_on)', url: `${guarded.url}/v1/chat/completions`, key: (await createLimitedKey(guarded.url)).key },
  ];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies = new Map(paths.map((target) => [target.name, []]));
  for (const target of paths) await calls(target, body, agent, 200); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}: ${CALLS} calls on each path…`);
    for (const target of round % 2 === 0 ? paths : [...paths].reverse()) latencies.get(target.name).push(...(await calls(target, body, agent, CALLS)));
  }
  const p50 = (name) => percentile(latencies.get(name), 0.5);
  const p99 = (name) => percentile(latencies.get(name), 0.99);
  const [direct, gateway, filtered] = paths.map((target) => target.name);
  const added = p50(filtered) - p50(gateway);
  const lines = [
    '',
    `date: ${new Date().toISOString()}; a ${Buffer.byteLength(prompt())}-byte prompt, one call at a time, ${ROUNDS} rounds of ${CALLS} calls per path`,
    '',
    '| path | p50 ms | p99 ms |',
    '|---|---:|---:|',
    ...paths.map(({ name }) => `| ${name} | ${p50(name).toFixed(3)} | ${p99(name).toFixed(3)} |`),
    '',
    '| target | measured | |',
    '|---|---|---|',
    `| the content filter adds ≤ 0.2 ms p50 to a 2 kB prompt | ${added >= 0 ? '+' : ''}${added.toFixed(3)} ms (the gateway adds ${(p50(gateway) - p50(direct)).toFixed(3)} ms to the direct call) | ${added <= 0.2 ? 'met' : '**missed**'} |`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

/** `count` calls one after another; each one's milliseconds, to the last byte of the answer. */
async function calls(target, body, agent, count) {
  const times = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    const status = await call(target, body, agent);
    if (status !== 200) throw new Error(`${target.name} answered ${status}`);
    times.push(performance.now() - started);
  }
  return times;
}

function call(target, body, agent) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      target.url,
      { method: 'POST', agent, headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode));
      },
    );
    request.once('error', reject);
    request.end(body);
  });
}

function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

runBenchmark(main, cleanups, log);
