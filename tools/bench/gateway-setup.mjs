// The AI gateway as the gateway benchmarks run it: the built app on a database of the run, with an
// alias of each family on the fake upstream, and a virtual key whose limits are checked on every
// call (set high, so that they never refuse), as in production.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, root, startBuiltApp, startTool } from './support.mjs';

const require = createRequire(import.meta.url);
const { startTestPostgres } = require(path.join(root, 'libs/testing/src/jest/test-postgres.cjs'));

export const MASTER_KEY = 'sk-arbor-bench-master';
export const UPSTREAM_KEY = 'sk-fake-bench';
export const MODEL = 'gpt-4o-mini';
// The Anthropic alias, on the fake's Messages API.
export const CLAUDE = 'claude-sonnet-4-5';
export const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant. Answer in one short sentence.' },
  { role: 'user', content: 'What does an AI gateway do?' },
];

/**
 * What a gateway bench runs the gateway against: the test PostgreSQL (the machine's, or an
 * embedded one), a database of the run on it, and the fake providers; each stopped or dropped by
 * one of `cleanups`.
 */
export async function startGatewayDependencies(cleanups) {
  const postgres = await startTestPostgres();
  cleanups.push(() => postgres.stop());
  const database = await createDatabase(postgres.url);
  cleanups.push(() => database.drop());
  const fake = await startTool('fake-providers', 'FAKE_PROVIDERS_PORT');
  cleanups.push(() => fake.stop());
  return { postgres, database, fake };
}

/**
 * The built gateway (or the build at `main`) with an alias of each family on the fake upstream at
 * `fakeUrl`; its config file is removed by one of `cleanups`. `log`: its AIGW_LOG, if given; `env`:
 * more of its environment (an experiment's switches); `configTail`: more of its config (YAML
 * sections after model_list).
 */
export function startBenchGateway({ databaseUrl, fakeUrl, main, nodeArgs = [], log, env = {}, configTail = '', cleanups }) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-gateway-'));
  cleanups.push(async () => fs.rmSync(directory, { recursive: true, force: true }));
  const config = path.join(directory, 'config.yaml');
  fs.writeFileSync(
    config,
    [
      'model_list:',
      `  - model_name: ${MODEL}`,
      '    litellm_params:',
      `      model: openai/${MODEL}`,
      `      api_base: ${fakeUrl}/openai`,
      `      api_key: ${UPSTREAM_KEY}`,
      `  - model_name: ${CLAUDE}`,
      '    litellm_params:',
      `      model: anthropic/${CLAUDE}`,
      `      api_base: ${fakeUrl}/anthropic`,
      `      api_key: ${UPSTREAM_KEY}`,
      configTail,
      '',
    ].join('\n'),
  );
  return startBuiltApp(
    'ai-gateway',
    'AIGW_LISTEN_ADDR',
    { ...env, AIGW_DATABASE_URL: databaseUrl, AIGW_CONFIG: config, AIGW_MASTER_KEY: MASTER_KEY, ...(log ? { AIGW_LOG: log } : {}) },
    { nodeArgs, ...(main ? { main } : {}) },
  );
}

/** A virtual key whose limits are checked on every call but never reached in a run. */
export async function createLimitedKey(gatewayUrl) {
  const response = await fetch(`${gatewayUrl}/api/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      project: 'bench',
      aliases: [MODEL, CLAUDE],
      rpm_limit: 1_000_000_000,
      tpm_limit: 1_000_000_000,
      max_budget: 1_000_000,
      budget_duration: '30d',
      metadata: { purpose: 'npm run bench:gateway' },
    }),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`the gateway refused the key: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** The chat completion every gateway benchmark sends, plain or streamed. */
export function chatBody(stream) {
  return JSON.stringify({ model: MODEL, messages: MESSAGES, ...(stream ? { stream: true } : {}) });
}
