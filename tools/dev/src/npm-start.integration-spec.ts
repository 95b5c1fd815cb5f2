// `npm start` as a newcomer runs it: the real script, an embedded PostgreSQL, the dev identity
// provider, the fake model providers and the four built services, then SIGTERM. Ports are free
// ones so it can run anywhere.
import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { agentCliPath, freePort } from '@arbor/testing';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { Client } from 'pg';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { recipesOf } from './doc-recipes/recipes.ts';
import { runRecipes } from './doc-recipes/run-recipes.ts';

const root = path.resolve(__dirname, '../../..');

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
}

function npmStart(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'tools/dev/src/main.mts'], {
    cwd: root,
    env: { ...process.env, ...env, ARBOR_SKIP_BUILD: 'true', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal gives it: Ctrl-C is sent to the whole group.
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 120000);
    const exitedEarly = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    };
    const watchForReady = () => {
      if (!output.includes('Arbor is running')) return;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      child.stdout!.off('data', watchForReady);
      resolve({ child, output: () => output });
    };
    child.once('exit', exitedEarly);
    child.stdout!.on('data', watchForReady);
  });
}

/** What the demo data leaves in the control plane's tables; a second start must not change it. */
async function controlPlaneCounts(pgPort: number): Promise<Record<string, number>> {
  const database = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${pgPort}/control_plane` });
  await database.connect();
  try {
    const counts: Record<string, number> = {};
    for (const table of ['workspace', 'users', 'projects', 'repositories', 'repository_secrets', 'permission_grants', 'audit_log', 'outbox_events']) {
      counts[table] = (await database.query(`select count(*)::int as n from ${table}`)).rows[0].n;
    }
    return counts;
  } finally {
    await database.end();
  }
}

async function machineToken(idpPort: number): Promise<string> {
  const response = await fetch(`http://localhost:${idpPort}/realms/arbor/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'ai-gateway-m2m', client_secret: 'dev-ai-gateway-m2m-secret' }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function personToken(idpPort: number, username: string): Promise<string> {
  const response = await fetch(`http://localhost:${idpPort}/realms/arbor/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', client_id: 'dev-cli', username, password: username }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** The official MCP SDK client with a person's token, connected. */
async function mcpClient(url: string, token: string): Promise<{ client: McpClient; sessionId: string | undefined }> {
  const client = new McpClient({ name: 'npm-start-spec', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId };
}

// The demo people's fixed subjects in deploy/keycloak/realm-export.json.
const ALICE = '421394a7-b2e8-4f4a-9396-3b751542a6ba';
const BOB = '18d1b156-6c2f-4a7d-a8f8-e5b332f95904';
const CAROL = '562056dd-344d-48ff-8fab-74fc35fc10a7';

/** The AI gateway's demo key as npm start printed it. */
function demoGatewayKey(output: string): string {
  const key = /AI gateway key of project alpha .*: (sk-arbor-\S+)/.exec(output)?.[1];
  if (!key) throw new Error(`npm start printed no AI gateway demo key:\n${output}`);
  return key;
}

/** A chat completion as an application sends it: the official SDK, the demo key, a demo alias. */
async function demoChat(port: number, apiKey: string, model: string): Promise<string | null | undefined> {
  const client = new OpenAI({ apiKey, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
  return completion.choices[0]?.message.content;
}

/** A message as an Anthropic-API client sends it (docs/ai-gateway.md's recipe): the official SDK with the base URL and the demo key. */
async function demoMessage(port: number, apiKey: string, model: string): Promise<string | undefined> {
  const client = new Anthropic({ apiKey, baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
  const message = await client.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** The master key npm start made and keeps in the data directory (docs/clients.md tells readers to take it from there). */
function devMasterKey(dataDir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-secrets.json'), 'utf8')) as { AIGW_MASTER_KEY: string }).AIGW_MASTER_KEY;
}

/** The process of npm start's fake providers on `port` (another run's may be on this machine too). */
function fakeProvidersPid(port: number): number {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const environment = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (command.includes('tools/fake-providers/src/main.ts') && environment.includes(`FAKE_PROVIDERS_PORT=${port}`)) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  throw new Error(`no fake providers process on port ${port}`);
}

/** Ctrl-C in a terminal: SIGINT to every process of the foreground group at once. */
function ctrlC(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    process.kill(-(child.pid as number), 'SIGINT');
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-npm-start-'));
  fs.chmodSync(dataDir, 0o755);
  const ports: Record<string, number> = {};
  let env: Record<string, string>;
  let demoCounts: Record<string, number>;
  let demoKey: string;

  beforeAll(async () => {
    for (const name of ['cp', 'dispatcher', 'ai', 'mcp', 'idp', 'pg', 'fake', 'everything', 'everything2026', 'agent']) ports[name] = await freePort();
    env = {
      ARBOR_DATA_DIR: dataDir,
      ARBOR_DEV_POSTGRES_PORT: String(ports['pg']),
      DEV_IDP_PORT: String(ports['idp']),
      CP_LISTEN_ADDR: `127.0.0.1:${ports['cp']}`,
      CP_DISPATCHER_LISTEN_ADDR: `127.0.0.1:${ports['dispatcher']}`,
      AIGW_LISTEN_ADDR: `127.0.0.1:${ports['ai']}`,
      MCPGW_LISTEN_ADDR: `127.0.0.1:${ports['mcp']}`,
      FAKE_PROVIDERS_PORT: String(ports['fake']),
      MCP_EVERYTHING_PORT: String(ports['everything']),
      MCP_EVERYTHING_2026_PORT: String(ports['everything2026']),
      DEMO_AGENT_PORT: String(ports['agent']),
      // Set when npm start runs, so it must reach the MCP gateway.
      USE_STATEFUL_SESSIONS: 'true',
      // Set when npm start runs, so it must reach the AI gateway (the demo key is made with it).
      AIGW_MASTER_KEY: 'sk-arbor-npm-start-test-master',
      // Set when npm start runs, so it must reach the control plane: a sync target.
      CP_SHOP_API_URL: 'http://127.0.0.1:9/shop',
      CP_DATABASE_URL: '',
      AIGW_DATABASE_URL: '',
      MCPGW_DATABASE_URL: '',
    };
  });

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('brings up the identity provider, the fake providers and all four services with the demo data, then stops everything on Ctrl-C', async () => {
    const { child, output } = await npmStart(env);
    try {
      // The banner is not buried: no line per request comes before it (the demo data alone makes dozens).
      const beforeBanner = output().slice(0, output().indexOf('Arbor is running')).split('\n');
      expect(beforeBanner.filter((line) => line.includes('"context":"http"'))).toEqual([]);
      for (const name of ['cp', 'dispatcher', 'ai', 'mcp']) {
        const response = await fetch(`http://127.0.0.1:${ports[name]}/healthz`);
        expect(await response.text()).toBe('ok');
      }
      const discovery = await fetch(`http://localhost:${ports['idp']}/realms/arbor/.well-known/openid-configuration`);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(`http://localhost:${ports['idp']}/realms/arbor`);
      expect(output()).toContain(`http://localhost:${ports['cp']}`);
      expect(output()).toMatch(/admin.*alice, bob, carol/);
      expect(output()).toContain(`data in ${path.join(dataDir, 'postgres')}`);
      expect(output()).toContain(`http://127.0.0.1:${ports['fake']}`);
      expect(output()).toContain('AI gateway master key: sk-arbor-npm-start-test-master');

      // The AI gateway answers the demo key on the demo aliases, each provider's served by its fake.
      expect(output()).toMatch(/demo data: added .*AI gateway key of alpha/);
      demoKey = demoGatewayKey(output());
      const answers: Record<string, string | null | undefined> = {};
      for (const alias of [
        'gpt-4o-mini',
        'unavailable',
        'claude-sonnet-4-6',
        'claude-opus-4-6',
        'claude-sonnet-4-5',
        'gemini-2.5-flash',
        'azure-gpt-4o',
        'bedrock-claude-sonnet-4-5',
        'vertex-gemini-2.5-flash',
      ]) {
        answers[alias] = await demoChat(ports['ai'], demoKey, alias);
      }
      expect(answers).toEqual({
        'gpt-4o-mini': 'fake answer from gpt-4o-mini',
        unavailable: 'fake answer from gpt-4o-mini',
        'claude-sonnet-4-6': 'fake answer from claude-sonnet-4-6',
        'claude-opus-4-6': 'fake answer from claude-opus-4-6',
        // The earlier demo alias still answers, on the current model.
        'claude-sonnet-4-5': 'fake answer from claude-sonnet-4-6',
        'gemini-2.5-flash': 'fake answer from gemini-2.5-flash',
        'azure-gpt-4o': 'fake answer from gpt-4o',
        'bedrock-claude-sonnet-4-5': 'fake answer from anthropic.claude-sonnet-4-5-20250929-v1:0',
        'vertex-gemini-2.5-flash': 'fake answer from gemini-2.5-flash',
      });
      // The same key with the Anthropic SDK: natively on Claude, bridged on GPT.
      // ... and the demo's Claude alias names a current model: the SDK prints no deprecation warning.
      const warn = jest.spyOn(console, 'warn');
      try {
        expect(await demoMessage(ports['ai'], demoKey, 'claude-sonnet-4-6')).toBe('fake answer from claude-sonnet-4-6');
        expect(warn).not.toHaveBeenCalled();
      } finally {
        warn.mockRestore();
      }
      expect(await demoMessage(ports['ai'], demoKey, 'gpt-4o-mini')).toBe('fake answer from gpt-4o-mini');

      // The MCP gateway serves the everything server as alpha's virtual server `everything` to alice
      // (mcp-gateway and mcp-gateway.operator on alpha), in stateful mode as npm start was asked.
      expect(output()).toContain(`http://127.0.0.1:${ports['everything']}/mcp`);
      const mcp = await mcpClient(`http://127.0.0.1:${ports['mcp']}/servers/everything/mcp`, await personToken(ports['idp'], 'alice'));
      try {
        expect(mcp.sessionId).toEqual(expect.any(String));
        const { tools } = await mcp.client.listTools();
        expect(tools.map((tool) => tool.name)).toContain('test_simple_text');
        expect((await mcp.client.callTool({ name: 'test_simple_text', arguments: {} })).isError).toBeFalsy();
      } finally {
        await mcp.client.close();
      }
      // The demo A2A agent, registered in alpha: its card at the gateway, every interface the gateway's.
      expect(output()).toContain(`http://127.0.0.1:${ports['agent']}`);
      const card = await fetch(`http://127.0.0.1:${ports['mcp']}/agents/helpdesk/.well-known/agent-card.json`, {
        headers: { authorization: `Bearer ${await personToken(ports['idp'], 'alice')}`, 'a2a-version': '1.0' },
      });
      expect(card.status).toBe(200);
      expect(((await card.json()) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0].url).toBe('http://localhost:' + ports['mcp'] + '/agents/helpdesk');
      // And an upstream of the 2026-07-28 revision, called in that revision (no initialize).
      expect(output()).toContain(`http://127.0.0.1:${ports['everything2026']}/mcp`);
      const modern = await fetch(`http://127.0.0.1:${ports['mcp']}/servers/everything-2026/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await personToken(ports['idp'], 'alice')}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'test_simple_text',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'test_simple_text', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
        }),
      });
      expect(await modern.json()).toMatchObject({ result: { resultType: 'complete', content: [{ type: 'text', text: 'This is a simple text response for testing.' }] } });

      // The demo data, through the API as a product sees it (a machine token).
      expect(output()).toMatch(/demo data: added .*project alpha/);
      const cp = `http://127.0.0.1:${ports['cp']}`;
      const token = await machineToken(ports['idp']);
      const get = async (path: string) => {
        const response = await fetch(`${cp}${path}`, { headers: { authorization: `Bearer ${token}` } });
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        return response.json() as Promise<Record<string, unknown>>;
      };
      const effective = (subject: string, project: string) => get(`/api/v1/permissions/effective?subject=${subject}&project=${project}`);
      expect(await get('/api/v1/workspace/settings')).toEqual({ name: 'Arbor Demo', timezone: 'Europe/Berlin', locale: null });
      expect((await effective(ALICE, 'alpha'))['permissions']).toEqual(['ai-gateway', 'ai-gateway.operator', 'mcp-gateway', 'mcp-gateway.operator']);
      expect((await effective(ALICE, 'beta'))['permissions']).toEqual(['ai-gateway', 'ai-gateway.viewer', 'mcp-gateway']);
      expect((await effective(BOB, 'alpha'))['permissions']).toEqual(['ai-gateway', 'ai-gateway.viewer']);
      expect((await effective(BOB, 'beta'))['permissions']).toEqual(['ai-gateway']);
      expect((await effective(CAROL, 'alpha'))['permissions']).toEqual([]);
      const { repositories } = (await get('/api/v1/repositories')) as { repositories: Record<string, string>[] };
      expect(repositories.map(({ project_slug, full_name, branch, installation_id }) => ({ project_slug, full_name, branch, installation_id }))).toEqual([
        { project_slug: 'alpha', full_name: 'github.com/arbor-demo/alpha-service', branch: 'main', installation_id: '4242' },
        { project_slug: 'beta', full_name: 'github.com/arbor-demo/beta-web', branch: 'develop', installation_id: '4243' },
      ]);
      const alpha = repositories[0]['project_id'];
      expect((await get(`/api/v1/projects/${alpha}/repository-secret/value`))['value']).toBe('ghs_demoAlphaToken0001');
      demoCounts = await controlPlaneCounts(ports['pg']);

      // Project sync reaches both gateways: the demo projects' deliveries to them end delivered.
      const adminToken = await personToken(ports['idp'], 'admin');
      const undelivered = async () => {
        const response = await fetch(`${cp}/api/v1/sync/deliveries?state=pending`, { headers: { authorization: `Bearer ${adminToken}` } });
        const { summary } = (await response.json()) as { summary: { product: string; pending: number }[] };
        return summary.filter((product) => ['ai-gateway', 'mcp-gateway'].includes(product.product)).map((product) => [product.product, product.pending]);
      };
      let pending = await undelivered();
      for (let tries = 0; tries < 100 && pending.some(([, count]) => count !== 0); tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        pending = await undelivered();
      }
      expect(pending).toEqual([
        ['ai-gateway', 0],
        ['mcp-gateway', 0],
      ]);

      // The data stays in the data directory: leave a mark for the second start.
      const database = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports['pg']}/control_plane` });
      await database.connect();
      await database.query('create table npm_start_marker (id int)');
      await database.end();
    } finally {
      // Right after the calls above, while their spend is still held in the gateway: Ctrl-C stops
      // the services first (they write it) and the database last, within seconds, and says so.
      const started = Date.now();
      expect(await ctrlC(child)).toBe(0);
      expect(Date.now() - started).toBeLessThan(8000);
    }
    expect(output()).toContain('Arbor stopped.');
    expect(output()).not.toMatch(/is lost|57P01|stopping the rest/);
    for (const name of ['cp', 'dispatcher', 'ai', 'mcp', 'idp', 'pg', 'fake', 'everything', 'everything2026', 'agent']) {
      expect({ port: name, open: await portOpen(ports[name]) }).toEqual({ port: name, open: false });
    }
  });

  it('passes settings through to the services (a malformed one stops the start, naming it)', async () => {
    await expect(npmStart({ ...env, USE_STATEFUL_SESSIONS: 'maybe' })).rejects.toThrow(/USE_STATEFUL_SESSIONS: must be true or false/);
    for (const name of ['cp', 'idp', 'pg', 'fake']) expect(await portOpen(ports[name])).toBe(false);
  });

  it('names the part that cannot start, with its cause and the variable that moves it', async () => {
    const squatter = net.createServer().listen(ports['idp'], '0.0.0.0');
    await new Promise((resolve) => squatter.once('listening', resolve));
    try {
      await expect(npmStart(env)).rejects.toThrow(/dev identity provider could not start on port \d+: .*EADDRINUSE[\s\S]*set DEV_IDP_PORT/);
    } finally {
      squatter.close();
    }
    for (const name of ['pg', 'fake']) expect(await portOpen(ports[name])).toBe(false);

    // A service's port: its own one line, naming its variable.
    const taken = net.createServer().listen(ports['ai'], '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    try {
      const failure = await npmStart(env).then(
        () => new Error('npm start started'),
        (error: Error) => error,
      );
      expect(failure.message).toMatch(/\[ai-gateway\] failed to start: AIGW_LISTEN_ADDR: 127\.0\.0\.1:\d+ is already in use; set AIGW_LISTEN_ADDR to a free address\n/);
      expect(failure.message).not.toMatch(/^\s+at |EADDRINUSE/m);
    } finally {
      taken.close();
    }
    for (const name of ['cp', 'idp', 'pg', 'fake']) expect(await portOpen(ports[name])).toBe(false);

    const database = net.createServer().listen(ports['pg'], '127.0.0.1');
    await new Promise((resolve) => database.once('listening', resolve));
    try {
      // PostgreSQL's own words, not `undefined`.
      await expect(npmStart(env)).rejects.toThrow(
        /embedded PostgreSQL could not start on 127\.0\.0\.1:\d+[\s\S]*(Address already in use|could not create any TCP\/IP sockets)[\s\S]*set ARBOR_DEV_POSTGRES_PORT/,
      );
    } finally {
      database.close();
    }
  });

  describe('a second start', () => {
    let second: Started | undefined;

    // As a newcomer starts it: no AIGW_MASTER_KEY (the master key is the one in .data/dev-secrets.json)
    // and no USE_STATEFUL_SESSIONS (the README's one MCP call needs no session).
    beforeAll(async () => {
      second = await npmStart({ ...env, AIGW_MASTER_KEY: '', USE_STATEFUL_SESSIONS: '' });
      installed = { codex: await agentCliPath('codex') };
    });

    /** A reader of the docs at the top of a checkout of this stack; its addresses, npm start's defaults, are this stack's ports. */
    const readerOptions = () => ({
      root,
      dataDir,
      addresses: {
        'http://localhost:8080': `http://localhost:${ports['cp']}`,
        'http://localhost:8090': `http://localhost:${ports['idp']}`,
        'http://localhost:4000': `http://localhost:${ports['ai']}`,
        'http://localhost:4444': `http://localhost:${ports['mcp']}`,
      },
    });

    /**
     * Codex CLI itself (installed from npm by the test set-up, libs/testing agent-clis.ts); Claude
     * Code's recipe starts its interactive session, so a stand-in makes the calls it would make with
     * what the recipe configures.
     */
    const standIns = { claude: path.join(__dirname, 'doc-recipes/stand-ins/claude.mts') };
    let installed: Record<string, string> = {};

    afterAll(async () => {
      if (second && second.child.exitCode === null) await stop(second.child);
    });

    it('finds the same data, and the demo data changes nothing', async () => {
      const { output } = second!;
      expect(output()).toContain('demo data: already there');
      expect(await controlPlaneCounts(ports['pg'])).toEqual(demoCounts);
      const database = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports['pg']}/control_plane` });
      await database.connect();
      const { rows } = await database.query("select to_regclass('npm_start_marker') is not null as kept");
      await database.end();
      expect(rows).toEqual([{ kept: true }]);
      // The same demo key, still working.
      expect(demoGatewayKey(output())).toBe(demoKey);
      // The calls made just before Ctrl-C were written: 9 chat completions (Bedrock and Vertex among them) and 2 messages.
      const master = { authorization: `Bearer ${devMasterKey(dataDir)}` };
      expect(output()).toContain(`AI gateway master key: ${devMasterKey(dataDir)}`);
      const { keys } = (await (await fetch(`http://127.0.0.1:${ports['ai']}/api/v1/keys?project=alpha`, { headers: master })).json()) as { keys: { id: string }[] };
      const spend = (await (await fetch(`http://127.0.0.1:${ports['ai']}/api/v1/keys/${keys[0]!.id}/spend`, { headers: master })).json()) as { totals: { requests: number } };
      expect(spend.totals.requests).toBe(11);
      expect(await demoChat(ports['ai'], demoKey, 'gpt-4o')).toBe('fake answer from gpt-4o');

      // A demo tool that dies is started again, and the suite carries on: the demo key answers again.
      process.kill(fakeProvidersPid(ports['fake']), 'SIGKILL');
      for (let tries = 0; tries < 100 && !output().includes('fake-providers stopped unexpectedly'); tries += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(output()).toContain('fake-providers stopped unexpectedly (SIGKILL); restarting it in 1 s');
      let answer: string | null | undefined;
      for (let tries = 0; tries < 100 && answer === undefined; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await demoChat(ports['ai'], demoKey, 'gpt-4o-mini').catch(() => undefined);
      }
      expect(answer).toBe('fake answer from gpt-4o-mini');
    });

    // The README's first-day steps, in order, as written (run-recipes.ts): a token, the permissions
    // endpoint, a chat completion with the demo key, an MCP tool call with alice's token.
    it("runs the README's recipes as written", async () => {
      const runs = await runRecipes(recipesOf(fs.readFileSync(path.join(root, 'README.md'), 'utf8'), 'README.md'), readerOptions());
      const said = runs.map((run) => run.output).join('\n');
      expect(said).toContain('"permissions":["ai-gateway","ai-gateway.operator","mcp-gateway","mcp-gateway.operator"]');
      expect(said).toContain('fake answer from gpt-4o');
      expect(said).toContain('This is a simple text response for testing.');
    });

    // docs/control-plane.md's follow-up of the README's permissions call: the ETag answered 304.
    it("runs docs/control-plane.md's recipes as written", async () => {
      const runs = await runRecipes(recipesOf(fs.readFileSync(path.join(root, 'docs/control-plane.md'), 'utf8'), 'docs/control-plane.md'), readerOptions());
      expect(runs.map((run) => run.output).join('\n')).toContain('HTTP/1.1 304 Not Modified');
    });

    // docs/ai-gateway.md's demo section: the SDKs, curl on both wire formats, Claude Code (its stand-in), the key list.
    it("runs docs/ai-gateway.md's recipes as written", async () => {
      const runs = await runRecipes(recipesOf(fs.readFileSync(path.join(root, 'docs/ai-gateway.md'), 'utf8'), 'docs/ai-gateway.md'), { ...readerOptions(), standIns, installed });
      const said = runs.map((run) => run.output).join('\n');
      expect(said).toContain('fake answer from claude-sonnet-4-6');
      expect(said).toContain('claude (stand-in): gpt-4o-mini answered');
      expect(said).toContain('"metadata":{"demo":"npm start"}');
    });

    // Every code block of docs/clients.md, in order, as written, in one shell of a reader at the
    // top of a checkout of this stack (run-recipes.ts); the only change is the gateway's address
    // (4000 → its port here). Codex CLI runs itself; Claude Code's stand-in (doc-recipes/stand-ins)
    // makes the calls it makes with what the recipe configures — the base URL and path it calls,
    // the key variable it reads, the aliases it names.
    it("runs every docs/clients.md recipe as written, the coding agents' settings included", async () => {
      const recipes = recipesOf(fs.readFileSync(path.join(root, 'docs/clients.md'), 'utf8'), 'docs/clients.md');
      const runs = await runRecipes(recipes, {
        ...readerOptions(),
        standIns,
        installed,
      });
      const said = runs.map((run) => run.output).join('\n');
      // The agents were reached with the aliases the recipes configure.
      expect(said).toContain('claude (stand-in): claude-sonnet-4-6 answered');
      // Codex CLI on the Claude alias, npm start's config as it is: Claude searched the web for its web_search tool, and answered.
      expect(said).toContain('model: claude-sonnet-4-6\nprovider: arbor');
      expect(said).toContain('web search:');
      expect(said).toContain('According to the search: fake answer from claude-sonnet-4-6');
      // The key the key-API recipe made is gone at its end.
      expect(said).toContain('"deleted_keys":["search-backend"]');
    });

    it('stops everything on SIGTERM, the restarted child too', async () => {
      const { child, output } = second!;
      expect(await stop(child)).toBe(0);
      expect(output()).not.toContain('stopping the rest');
      // The restarted child is stopped with the rest.
      expect(await portOpen(ports['fake'])).toBe(false);
    });
  });
});
