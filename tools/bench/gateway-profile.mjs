// `npm run bench:gateway-profile`: where the AI gateway's CPU goes on a chat completion, stage by
// stage — the table docs/benchmarks.md keeps. The built gateway runs under `node --cpu-prof`, as
// `npm run bench:gateway` runs it (the same config and limited key, the fake upstream), and is
// loaded with plain, then streamed, calls by autocannon, as fast as they go. The profile's samples
// inside each load (the clock is the monotonic one both processes read) are given to the innermost
// frame of the suite's own code on their stack, its file (through the bundle's source map) to a
// stage by the rules below; samples with none of our code go by the Node.js or library part they
// ran in. Each stage's CPU is divided by the calls answered in the same load: milliseconds per call.
//
// The absolute figures move with the machine; what a change costs shows as the difference between
// two runs of this on one machine (or one run with --main of another build), stage by stage.
//
// With --rate the loads are paced instead (a call every 1/rate s, each alone on the machine, as
// bench:gateway's added-latency runs send them): what a lone call costs, cold caches and all,
// which is what its added latency follows, where the loaded profile says what throughput pays.
//
// Options: --duration <s> (each load, default 10), --connections <n> (default 50), --rate <n>
// (paced loads at n calls/s instead of autocannon's), --interval <µs> (the profiler's sampling
// interval, default V8's 1000; 20–50 for paced loads, whose calls last a fraction of a millisecond), --skip-build,
// --main <main.js> (profile another build of the gateway), --keep <dir> (keep the .cpuprofile
// there, with the loads' times, to open in Chrome's DevTools), --analyse <dir> (no run: the tables of
// a profile kept with --keep, e.g. after changing STAGES), --top <n> (functions listed by their own
// time, default 25).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { profileByStage } from './cpu-profile.mjs';
import { chatBody, createLimitedKey, startBenchGateway, startGatewayDependencies } from './gateway-setup.mjs';
import { build, pacedLoad, runBenchmark } from './support.mjs';

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rate: { type: 'string' },
    interval: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    main: { type: 'string' },
    keep: { type: 'string' },
    top: { type: 'string', default: '25' },
    analyse: { type: 'string' },
  },
});
const DURATION = Number(options.duration);
const CONNECTIONS = Number(options.connections);
const RATE = options.rate === undefined ? undefined : Number(options.rate);

// The suite's files, by the stage of a call they serve (first match wins).
const STAGES = [
  [/^libs\/ai-gateway\/src\/lib\/(keys\/|gateway-key\.guard|litellm-keys\/|projects\/)|^libs\/api-keys\//, 'key lookup'],
  [/^libs\/ai-gateway\/src\/lib\/limits\//, 'limits (rpm, tpm, budget)'],
  [
    /^libs\/ai-gateway\/src\/lib\/(call-router|deployment-router|deployment-cooldowns|gateway-settings|config\/)|calls\/(requested-alias|drop-params)/,
    'plan (alias, deployment, params)',
  ],
  [/^libs\/ai-gateway\/src\/lib\/response-cache\//, 'response cache'],
  [/^libs\/ai-gateway\/src\/lib\/stored-responses\//, 'stored responses'],
  [/^libs\/ai-gateway\/src\/lib\/resources\//, 'object references'],
  [/^libs\/ai-gateway\/src\/lib\/(spend|pricing)\/|calls\/(call-accounting|usage)\./, 'spend and usage'],
  [/calls\/gateway-metrics|^libs\/observability\//, 'metrics, logs, traces'],
  [/calls\/request-body|^libs\/platform\/src\/lib\/input\//, 'request body and input rules'],
  [/^libs\/provider-adapters\//, 'upstream request (provider adapter)'],
  [/^libs\/ai-gateway\/src\/lib\/endpoints\//, 'codec (request and answer)'],
  [/^libs\/ai-gateway\/src\/lib\/calls\//, 'call pipeline'],
  [/^libs\/platform\//, 'edge (platform: errors, routes)'],
  [/^libs\/(contract|auth)\//, 'identity'],
];
const stageOf = (source) => STAGES.find(([pattern]) => pattern.test(source))?.[1];

const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];
const now = () => Number(process.hrtime.bigint() / 1000n);

async function main() {
  if (options.analyse) return report(path.resolve(options.analyse));
  if (!options['skip-build'] && !options.main) {
    log('building ai-gateway (Nx caches it when nothing changed)…');
    build(['ai-gateway']);
  }
  const profiles = options.keep ? path.resolve(options.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-profile-'));
  fs.mkdirSync(profiles, { recursive: true });
  if (!options.keep) cleanups.push(async () => fs.rmSync(profiles, { recursive: true, force: true }));
  const before = new Set(fs.readdirSync(profiles));

  log('starting PostgreSQL, the fake providers and the gateway under --cpu-prof…');
  const { database, fake } = await startGatewayDependencies(cleanups);
  const gateway = await startBenchGateway({
    databaseUrl: database.url,
    fakeUrl: fake.url,
    main: options.main && path.resolve(options.main),
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`, ...(options.interval ? [`--cpu-prof-interval=${options.interval}`] : [])],
    cleanups,
  });
  let stopped = false;
  cleanups.push(async () => (stopped ? undefined : gateway.stop()));
  const key = await createLimitedKey(gateway.url);

  const windows = [];
  for (const stream of [false, true]) {
    const kind = stream ? 'streamed' : 'plain';
    log(`${kind}: warming up 3 s, then ${DURATION} s ${RATE ? `at ${RATE} calls/s` : `with ${CONNECTIONS} connections`}…`);
    await load(gateway.url, key.key, stream, 3);
    // The warm-up's end cuts its calls in flight short, and the gateway settles them by counting
    // their prompts: the first count loads the tokenizer (about 0.3 s of CPU, once per process).
    // Measured, that was 0.006 ms of every plain call's CPU; a gateway that has run a while has it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const from = now();
    const result = await load(gateway.url, key.key, stream, DURATION);
    windows.push({ kind, window: [from, now()], calls: result.requests.total, statuses: result.statusCodeStats });
  }
  await gateway.stop();
  stopped = true;
  const file = fs.readdirSync(profiles).find((name) => name.endsWith('.cpuprofile') && !before.has(name));
  if (!file) throw new Error('the gateway wrote no CPU profile');
  fs.writeFileSync(path.join(profiles, `${file}.loads.json`), JSON.stringify(windows));
  report(profiles, file);
}

/** The tables of the profile `file` in `profiles` (the newest there when not named), from its loads' record. */
function report(profiles, file = newestProfile(profiles)) {
  const windows = JSON.parse(fs.readFileSync(path.join(profiles, `${file}.loads.json`), 'utf8'));

  const lines = [
    `CPU per call of the AI gateway, by stage (${os.availableParallelism()} CPUs, ${os.cpus()[0]?.model ?? 'unknown'}; ${RATE ? `paced at ${RATE} calls/s` : `${CONNECTIONS} connections`}, ${DURATION} s each):`,
    '',
  ];
  for (const { kind, window, calls, statuses } of windows) {
    const other = Object.entries(statuses).filter(([code]) => code !== '200');
    if (other.length > 0) log(`  warning: ${kind} answered ${JSON.stringify(statuses)}`);
    const result = profileByStage(path.join(profiles, file), { window, calls, stageOf, top: Number(options.top) });
    lines.push(`### ${kind}: ${calls} calls, ${result.cpuMs.toFixed(3)} ms of CPU per call`, '', '| stage | ms per call | share |', '|---|---:|---:|');
    for (const { stage, ms, share } of result.stages) lines.push(`| ${stage} | ${ms.toFixed(4)} | ${(share * 100).toFixed(1)} % |`);
    lines.push('', `Functions by their own time (${kind}):`, '', '| function | where | ms per call |', '|---|---|---:|');
    for (const { name, where, ms } of result.functions) lines.push(`| ${name} | ${where} | ${ms.toFixed(4)} |`);
    lines.push('', `The suite's functions with all they called (${kind}):`, '', '| function | where | ms per call |', '|---|---|---:|');
    for (const { name, where, ms } of result.inclusive) lines.push(`| ${name} | ${where} | ${ms.toFixed(4)} |`);
    lines.push('');
  }
  if (options.keep) lines.push(`The profile: ${path.join(profiles, file)}`, '');
  process.stdout.write(lines.join('\n'));
}

function newestProfile(directory) {
  const files = fs.readdirSync(directory).filter((name) => name.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`${directory} holds no .cpuprofile`);
  return files.sort((a, b) => fs.statSync(path.join(directory, b)).mtimeMs - fs.statSync(path.join(directory, a)).mtimeMs)[0];
}

function load(url, apiKey, stream, duration) {
  if (RATE) return pacedLoad(`${url}/v1/chat/completions`, { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, chatBody(stream), RATE, duration);
  return autocannon({
    url: `${url}/v1/chat/completions`,
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: chatBody(stream),
    connections: CONNECTIONS,
    duration,
  });
}

runBenchmark(main, cleanups, log);
