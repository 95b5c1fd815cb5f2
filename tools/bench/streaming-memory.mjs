// `npm run bench:streaming-memory`: the AI gateway's memory while large bodies pass through it,
// and the time they take against the fake upstream called directly in the same run:
//
//   upload:   a --upload-mb (500) MB file to POST /v1/images/edits and to /v1/audio/transcriptions
//             (multipart, as the OpenAI SDK sends it: the file before the model); the gateway
//             spools it to disk while it reads it, then streams it to the upstream;
//   download: a --speech-mb (100) MB audio answer from POST /v1/audio/speech, streamed back.
//
// For each it reports the gateway's resident memory (VmRSS from /proc, sampled every 50 ms) above
// its idle level (the median over a second before the transfer, after one small call of the same
// kind warmed the route up), the most it reached, and the wall time of the transfer through the
// gateway and directly. The target (issue 21): under 100 MB above idle.
//
// Everything it starts is its own and stopped at the end: PostgreSQL (the test server), a
// database (dropped), the fake providers and the built gateway as child processes, a config file
// in a temporary directory (removed). The bodies are generated as they are sent; no file is
// written but the gateway's own spool (removed by it after each call). Linux only.
//
// Options: --upload-mb <n> (default 500), --speech-mb <n> (default 100), --skip-build.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startGatewayDependencies } from './gateway-setup.mjs';
import { build, runBenchmark, startBuiltApp } from './support.mjs';

const { values: options } = parseArgs({
  options: {
    'upload-mb': { type: 'string', default: '500' },
    'speech-mb': { type: 'string', default: '100' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const MB = 1_000_000;
const UPLOAD_BYTES = Math.round(Number(options['upload-mb']) * MB);
const SPEECH_BYTES = Math.round(Number(options['speech-mb']) * MB);
const MASTER_KEY = 'sk-arbor-bench-master';
const UPSTREAM_KEY = 'sk-fake-bench';
const TARGET_BYTES = 100 * 1024 * 1024;

const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];

async function main() {
  if (!options['skip-build']) {
    log('building ai-gateway (Nx caches it when nothing changed)…');
    build(['ai-gateway']);
  }
  log('starting PostgreSQL, the fake providers and the gateway…');
  const { database, fake } = await startGatewayDependencies(cleanups);
  const gateway = await startGateway(database.url, fake.url);
  cleanups.push(() => gateway.stop());

  const direct = { url: `${fake.url}/openai`, authorization: `Bearer ${UPSTREAM_KEY}` };
  const through = { url: gateway.url, authorization: `Bearer ${MASTER_KEY}` };
  const results = [];
  for (const [name, path, model, alias] of [
    ['image edit upload', '/v1/images/edits', 'gpt-image-1', 'edit'],
    ['transcription upload', '/v1/audio/transcriptions', 'whisper-1', 'transcribe'],
  ]) {
    const fields = (model) => ({ model, ...(path.includes('images') ? { prompt: 'bench edit' } : {}) });
    const fileField = path.includes('images') ? 'image' : 'file';
    // Warm the route up with a small upload, then measure.
    await upload(through, path, fileField, fields(alias), 1000);
    const measured = await measureMemory(gateway.pid, () => upload(through, path, fileField, fields(alias), UPLOAD_BYTES));
    const baseline = await upload(direct, path, fileField, fields(model), UPLOAD_BYTES);
    results.push({ name, bytes: UPLOAD_BYTES, ...measured, directMs: baseline.ms });
  }
  await speech(through, 'speech-small');
  const measured = await measureMemory(gateway.pid, () => speech(through, 'speech'));
  const baseline = await speech(direct, `tts-bytes-${SPEECH_BYTES}`);
  results.push({ name: 'speech download', bytes: SPEECH_BYTES, ...measured, directMs: baseline.ms });

  log('');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  for (const result of results) {
    const above = result.peak - result.idle;
    log(
      `${result.name.padEnd(22)} ${(result.bytes / MB).toFixed(0)} MB: gateway RSS idle ${mib(result.idle)}, peak ${mib(result.peak)} ` +
        `(+${mib(above)} above idle: ${above < TARGET_BYTES ? 'under' : 'OVER'} the 100 MiB target); ` +
        `${(result.ms / 1000).toFixed(2)} s through the gateway, ${(result.directMs / 1000).toFixed(2)} s direct`,
    );
  }
}

async function startGateway(databaseUrl, fakeUrl) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-streaming-'));
  cleanups.push(async () => fs.rmSync(directory, { recursive: true, force: true }));
  const config = path.join(directory, 'config.yaml');
  const deployment = (alias, model) => [
    `  - model_name: ${alias}`,
    '    litellm_params:',
    `      model: openai/${model}`,
    `      api_base: ${fakeUrl}/openai`,
    `      api_key: ${UPSTREAM_KEY}`,
  ];
  fs.writeFileSync(
    config,
    [
      'model_list:',
      ...deployment('edit', 'gpt-image-1'),
      ...deployment('transcribe', 'whisper-1'),
      ...deployment('speech', `tts-bytes-${SPEECH_BYTES}`),
      ...deployment('speech-small', 'tts-bytes-1000'),
      '',
    ].join('\n'),
  );
  return startBuiltApp('ai-gateway', 'AIGW_LISTEN_ADDR', {
    AIGW_DATABASE_URL: databaseUrl,
    AIGW_CONFIG: config,
    AIGW_MASTER_KEY: MASTER_KEY,
    AIGW_MAX_UPLOAD_SIZE: `${UPLOAD_BYTES + MB}`,
    AIGW_LOG: 'warn',
  });
}

/** Runs `transfer` while sampling the gateway's RSS: its idle level just before, its peak during, and the transfer's time. */
async function measureMemory(pid, transfer) {
  const idleSamples = [];
  for (let index = 0; index < 20; index++) {
    idleSamples.push(residentBytes(pid));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const idle = idleSamples.sort((a, b) => a - b)[Math.floor(idleSamples.length / 2)];
  let peak = idle;
  const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 50);
  try {
    const { ms } = await transfer();
    return { idle, peak, ms };
  } finally {
    clearInterval(timer);
  }
}

/** A multipart upload of `bytes` generated as it is sent (the file first, as the SDK sends it), read to the answer's end. */
function upload(target, path, fileField, fields, bytes) {
  const boundary = `----bench${Date.now()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(
    `\r\n${Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('')}--${boundary}--\r\n`,
  );
  const piece = Buffer.alloc(1024 * 1024, 0x42);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${target.url}${path}`,
      {
        method: 'POST',
        headers: { authorization: target.authorization, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + bytes + tail.length },
      },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => {
          if (response.statusCode !== 200) return reject(new Error(`${path} answered ${response.statusCode}: ${body.slice(0, 300)}`));
          resolve({ ms: performance.now() - started });
        });
      },
    );
    request.on('error', reject);
    let sent = 0;
    const send = () => {
      if (sent === 0) request.write(head);
      while (sent < bytes) {
        const chunk = bytes - sent >= piece.length ? piece : piece.subarray(0, bytes - sent);
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once('drain', send);
      }
      request.end(tail);
    };
    send();
  });
}

/** A speech call read to its end, counting the bytes. */
async function speech(target, model) {
  const started = performance.now();
  const response = await fetch(`${target.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: target.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ model, voice: 'alloy', input: 'bench speech' }),
  });
  if (!response.ok) throw new Error(`speech answered ${response.status}: ${await response.text()}`);
  let bytes = 0;
  for await (const chunk of response.body) bytes += chunk.length;
  if (model.startsWith('tts-bytes-') && bytes !== Number(model.slice('tts-bytes-'.length))) throw new Error(`speech: ${bytes} bytes arrived`);
  return { ms: performance.now() - started, bytes };
}

function residentBytes(pid) {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

runBenchmark(main, cleanups, log);
