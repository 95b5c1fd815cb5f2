// The coding agents themselves, installed from npm (libs/testing agent-clis.ts), against the
// gateway running npm start's own AIGW_CONFIG (tools/dev/ai-gateway.demo.yaml, as it is) on
// tools/fake-providers: Codex CLI (`codex exec`, Responses API) and Claude Code (`claude -p`,
// Messages API) on the demo's GPT, Claude, Gemini and Bedrock aliases. Codex sends its built-in
// web_search tool with every turn: on Claude and Gemini it becomes their own search, on Bedrock it
// is dropped (drop_params is on in the demo, as in the reference configuration).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService } from '@arbor/platform';
import { agentCliPath, createTestDatabase, FakeProvidersProcess, startFakeProviders, TestDatabase } from '@arbor/testing';
import { MASTER_KEY, startTestGateway } from './testing/gateway-test-support';

const DEMO_CONFIG = path.join(__dirname, '../../../tools/dev/ai-gateway.demo.yaml');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A CLI run to its end (or killed after a minute), its stdin closed as a terminal-less run has it, in a home directory of its own. */
function run(executable: string, args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { cwd, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('Codex CLI and Claude Code against npm start’s gateway config', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let key: string;
  let codex: string;
  let claude: string;
  let home: string;

  beforeAll(async () => {
    [codex, claude] = await Promise.all([agentCliPath('codex'), agentCliPath('claude')]);
    fake = await startFakeProviders();
    database = await createTestDatabase();
    const vertexCredentials = await (await fetch(`${fake.url}/vertex/_fake/service-account`)).text();
    // What npm start passes the gateway (tools/dev/src/services.mts): the fakes' addresses, read by the config's os.environ/… values.
    Object.assign(process.env, {
      FAKE_OPENAI_API_BASE: `${fake.url}/openai`,
      FAKE_ANTHROPIC_API_BASE: `${fake.url}/anthropic`,
      FAKE_GEMINI_API_BASE: `${fake.url}/gemini`,
      FAKE_AZURE_API_BASE: `${fake.url}/azure`,
      FAKE_BEDROCK_API_BASE: `${fake.url}/bedrock`,
      FAKE_VERTEX_API_BASE: `${fake.url}/vertex`,
      FAKE_VERTEX_CREDENTIALS: vertexCredentials,
    });
    gateway = await startTestGateway(database, DEMO_CONFIG);
    key = (
      await request(gateway.url)
        .post('/api/v1/keys')
        .set({ authorization: `Bearer ${MASTER_KEY}` })
        .send({ project: 'alpha' })
        .expect(201)
    ).body.key as string;
    home = mkdtempSync(path.join(tmpdir(), 'agents-'));
  }, 360_000);

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  /** docs/clients.md's Codex recipe: a provider in $CODEX_HOME/config.toml, the key in ARBOR_KEY. */
  const codexExec = (alias: string, prompt: string): Promise<Run> => {
    const codexHome = mkdtempSync(path.join(home, 'codex-'));
    writeFileSync(
      path.join(codexHome, 'config.toml'),
      `model = "${alias}"\nmodel_provider = "arbor"\n\n[model_providers.arbor]\nname = "Arbor AI gateway"\nbase_url = "${gateway.url}/v1"\nenv_key = "ARBOR_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n`,
    );
    return run(codex, ['exec', '--skip-git-repo-check', prompt], { HOME: home, CODEX_HOME: codexHome, ARBOR_KEY: key }, home);
  };

  it.each([
    ['claude-sonnet-4-6', 'fake answer from claude-sonnet-4-6'],
    ['gpt-4o-mini', 'fake answer from gpt-4o-mini'],
    ['gemini-2.5-flash', 'fake answer from gemini-2.5-flash'],
    ['bedrock-claude-sonnet-4-5', 'fake answer from anthropic.claude-sonnet-4-5'],
  ])(
    'Codex CLI answers on %s with its built-in web_search and its tools',
    async (alias, answer) => {
      const result = await codexExec(alias, `say hello from codex on ${alias}`);
      expect({ code: result.code, errors: result.stderr.split('\n').filter((line) => line.startsWith('ERROR')) }).toEqual({ code: 0, errors: [] });
      expect(result.stdout).toContain(answer);
    },
    90_000,
  );

  it.each([
    ['claude-sonnet-4-6', '/anthropic/v1/messages', { type: 'web_search_20250305', name: 'web_search' }],
    ['gemini-2.5-flash', '/gemini/', { googleSearch: {} }],
  ])(
    "searches the web with the provider's own search on %s when Codex offers web_search",
    async (alias, path, tool) => {
      const marker = `codex searching on ${alias}`;
      const result = await codexExec(alias, marker);
      // Codex shows the search the provider ran, and the answer after it.
      expect(result.stderr).toMatch(new RegExp(`web search: [\\s\\S]*${marker}`));
      expect(result.stderr).toContain(alias.startsWith('claude') ? `According to the search: fake answer from ${alias}` : `fake answer from ${alias}`);
      const sent = (await fake.requests()).find((seen) => seen.path.startsWith(path) && seen.body.includes(marker));
      expect(JSON.parse(sent?.body ?? '{}').tools).toContainEqual(tool);
    },
    90_000,
  );

  it.each([
    ['claude-sonnet-4-6', 'fake answer from claude-sonnet-4-6'],
    ['gpt-4o-mini', 'fake answer from gpt-4o-mini'],
    ['gemini-2.5-flash', 'fake answer from gemini-2.5-flash'],
    ['bedrock-claude-sonnet-4-5', 'fake answer from anthropic.claude-sonnet-4-5'],
  ])(
    'Claude Code answers on %s (claude -p, ANTHROPIC_BASE_URL)',
    async (alias, answer) => {
      const result = await run(
        claude,
        ['-p', `say hello from claude code on ${alias}`],
        {
          HOME: home,
          ANTHROPIC_BASE_URL: gateway.url,
          ANTHROPIC_AUTH_TOKEN: key,
          ANTHROPIC_MODEL: alias,
          ANTHROPIC_DEFAULT_HAIKU_MODEL: alias,
          // No telemetry, update checks or error reports: this machine reaches only the gateway.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        home,
      );
      // Its warnings (a name it does not know, a model near retirement) are harmless (docs/clients.md); an error is not.
      const errors = result.stderr.split('\n').filter((line) => /error/i.test(line));
      expect({ code: result.code, errors, stdout: result.stdout }).toEqual({ code: 0, errors: [], stdout: expect.stringContaining(answer) });
    },
    90_000,
  );
});
