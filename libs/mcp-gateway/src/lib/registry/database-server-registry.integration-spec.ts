// The registry as the runtime and the platform team meet it: MCPGW_CONFIG synced into PostgreSQL
// at every start, API-made rows kept, headers encrypted at rest, other replicas' changes followed.
import { randomBytes } from 'node:crypto';
import { AgentCard } from '@a2a-js/sdk';
import { DataSource } from 'typeorm';
import { ConfigError } from '@arbor/config';
import { dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { MCP_GATEWAY_ENTITIES, MCP_GATEWAY_MIGRATIONS } from '../database';
import { DatabaseServerRegistry } from './database-server-registry';
import { HeaderCipher } from './header-cipher';
import { parseRegistryConfig } from './registry-config';
import { RegistryStore } from './registry-store';
import { RepositoryTokenHosts } from '../projects/repository-token-hosts';

const SECRETS_KEY = Buffer.alloc(32, 3).toString('base64');
const TOKEN = `Bearer ${randomBytes(12).toString('hex')}`;

const FILE_ONE = `
upstreams:
  - name: everything
    url: http://127.0.0.1:3001/mcp
    headers: { authorization: os.environ/EVERYTHING_TOKEN }
  - name: weather
    url: http://127.0.0.1:3002/mcp
servers:
  - id: everything
    project: alpha
    upstreams: [{ upstream: everything }]
  - id: forecast
    project: beta
    upstreams: [{ upstream: weather, tools: [forecast] }]
`;

// everything changed, weather and forecast removed, search added.
const FILE_TWO = `
upstreams:
  - name: everything
    url: http://127.0.0.1:3001/mcp
    timeout: 5
    headers: { authorization: os.environ/EVERYTHING_TOKEN }
  - name: search
    url: http://127.0.0.1:3003/mcp
servers:
  - id: everything
    project: alpha
    description: Now with search
    upstreams: [{ upstream: everything }, { upstream: search, tools: [find] }]
`;

describe('DatabaseServerRegistry', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const started: DatabaseServerRegistry[] = [];

  const start = async (file: string, { withSecretsKey = true, tokenHosts = [] as string[] } = {}): Promise<DatabaseServerRegistry> => {
    const config = parseRegistryConfig(file, { EVERYTHING_TOKEN: TOKEN });
    const registry = new DatabaseServerRegistry(new RegistryStore(dataSource, withSecretsKey ? new HeaderCipher(SECRETS_KEY) : undefined), {
      config,
      allowLinkLocal: false,
      repositoryTokenHosts: new RepositoryTokenHosts(tokenHosts),
    });
    await registry.start();
    started.push(registry);
    return registry;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(
      dataSourceOptions({ url: database.url, applicationName: 'mcp-registry-test', entities: MCP_GATEWAY_ENTITIES, migrations: MCP_GATEWAY_MIGRATIONS }),
    ).initialize();
    await runMigrationsLocked(dataSource);
  });

  afterEach(async () => {
    for (const registry of started.splice(0)) registry.stop();
    await dataSource.query('delete from virtual_servers');
    await dataSource.query('delete from upstreams');
    await dataSource.query('delete from agents');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('serves the file, then at the next start follows its changes and keeps API-made rows', async () => {
    const first = await start(FILE_ONE);
    expect(first.upstream('everything')).toMatchObject({ url: 'http://127.0.0.1:3001/mcp', transport: 'streamable-http', headers: { authorization: TOKEN }, timeoutMs: 60_000 });
    expect(first.servers().map((server) => server.id)).toEqual(['everything', 'forecast']);
    await first.createUpstream({ name: 'tickets', url: 'http://127.0.0.1:3004/mcp', transport: 'sse', headers: { 'x-api-key': 'k' }, timeoutMs: 1000, maxConcurrency: 2 });
    await first.createServer({ id: 'support', project: 'beta', name: 'Support', selections: [{ upstream: 'tickets', tools: '*', resources: [], prompts: [] }] });
    first.stop();

    const second = await start(FILE_TWO);
    expect(second.upstreams().map((upstream) => [upstream.name, upstream.source])).toEqual([
      ['everything', 'config'],
      ['search', 'config'],
      ['tickets', 'api'],
    ]);
    expect(second.upstream('everything')?.timeoutMs).toBe(5000);
    expect(second.upstream('tickets')?.headers).toEqual({ 'x-api-key': 'k' });
    expect(second.servers().map((server) => server.id)).toEqual(['everything', 'support']);
    expect(second.server('everything')).toMatchObject({
      description: 'Now with search',
      selections: [
        { upstream: 'everything', tools: '*', resources: '*', prompts: '*' },
        { upstream: 'search', tools: ['find'], resources: '*', prompts: '*' },
      ],
    });
  });

  it('leaves unchanged config rows untouched at a restart', async () => {
    await start(FILE_ONE);
    const before = await dataSource.query('select name, updated_at, headers_nonce from upstreams order by name');
    await start(FILE_ONE);
    expect(await dataSource.query('select name, updated_at, headers_nonce from upstreams order by name')).toEqual(before);
  });

  it('refuses to start when the file names an API-made row, or drops an upstream an API-made server selects', async () => {
    const first = await start('');
    await first.createUpstream({ name: 'weather', url: 'http://127.0.0.1:3002/mcp', transport: 'streamable-http', headers: {}, timeoutMs: 1000, maxConcurrency: 1 });
    await expect(start(FILE_ONE)).rejects.toThrow(ConfigError);
    await expect(start(FILE_ONE)).rejects.toThrow('upstreams[1].name: "weather" is also an upstream made through the admin API');
    await first.deleteUpstream('weather');

    const second = await start(FILE_ONE);
    await second.createServer({ id: 'mine', project: 'alpha', name: 'Mine', selections: [{ upstream: 'weather', tools: '*', resources: '*', prompts: '*' }] });
    await expect(start(FILE_TWO)).rejects.toThrow('"weather" left the file but the virtual server "mine" (made through the admin API) still selects it');
    // Nothing of the refused file was applied.
    expect((await dataSource.query("select name from upstreams where name = 'search'")).length).toBe(0);
  });

  it("keeps a server's guardrails across restarts, and refuses a file that drops one an API-made server names", async () => {
    const guardrail = (name: string) => `  - { guardrail_name: ${name}, litellm_params: { guardrail: litellm_content_filter, mode: pre_mcp_call } }\n`;
    const withGuardrails = `${FILE_ONE}    guardrails: [pii]\nguardrails:\n${guardrail('pii')}${guardrail('secrets')}`;
    const first = await start(withGuardrails);
    expect(first.server('forecast')?.guardrails).toEqual(['pii']);
    await first.createServer({ id: 'mine', project: 'alpha', name: 'Mine', selections: [], guardrails: ['secrets'] });
    expect((await start(withGuardrails)).server('mine')?.guardrails).toEqual(['secrets']);
    await expect(start(`${FILE_ONE}guardrails:\n${guardrail('pii')}`)).rejects.toThrow(
      'MCPGW_CONFIG: guardrails: "secrets" is not in the file but the virtual server "mine" (made through the admin API) names it',
    );
    // Nothing of the refused file was applied.
    expect((await start(withGuardrails)).server('forecast')?.guardrails).toEqual(['pii']);
  });

  it('refuses a file whose server selects an upstream nobody has, or whose upstream is a metadata address', async () => {
    await expect(start('servers: [{ id: lost, project: alpha, upstreams: [{ upstream: nowhere }] }]')).rejects.toThrow(
      'servers[0].upstreams[0].upstream: "nowhere" is not an upstream',
    );
    await expect(start('upstreams: [{ name: imds, url: "http://169.254.169.254/latest" }]')).rejects.toThrow(
      'MCPGW_CONFIG: upstreams[0].url: the upstream host 169.254.169.254 resolves to 169.254.169.254, a cloud metadata address',
    );
  });

  it('refuses to start when the file gives {{project.repository_token}} to a host outside MCPGW_REPOSITORY_TOKEN_HOSTS', async () => {
    const file = 'upstreams: [{ name: git, url: "http://127.0.0.1:3005/mcp", headers: { authorization: "Bearer {{project.repository_token}}" } }]';
    const refused = await start(file).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).lines()).toEqual([
      expect.stringMatching(
        /^MCPGW_CONFIG: upstreams\[0\]\.headers: the upstream "git" asks for \{\{project\.repository_token\}\} .*host 127\.0\.0\.1 .*\(MCPGW_REPOSITORY_TOKEN_HOSTS\)$/,
      ),
    ]);
    expect((await start(file, { tokenHosts: ['127.0.0.1'] })).upstream('git')?.headers).toEqual({ authorization: 'Bearer {{project.repository_token}}' });
  });

  it('keeps header values out of the database: no plaintext, hex or base64 of them in any column', async () => {
    const registry = await start(FILE_ONE);
    const apiSecret = `sk-${randomBytes(16).toString('hex')}`;
    await registry.createUpstream({ name: 'tickets', url: 'http://127.0.0.1:3004/mcp', transport: 'sse', headers: { 'x-api-key': apiSecret }, timeoutMs: 1000, maxConcurrency: 2 });
    const dump =
      JSON.stringify(await dataSource.query("select u.*, encode(headers_ciphertext, 'escape') as escaped from upstreams u")) +
      JSON.stringify(await dataSource.query('select * from virtual_servers'));
    for (const secret of [TOKEN, apiSecret]) {
      const bare = secret.replace(/^Bearer /, '');
      for (const form of [bare, Buffer.from(bare).toString('hex'), Buffer.from(bare).toString('base64'), Buffer.from(secret).toString('base64')]) expect(dump).not.toContain(form);
    }
    const rows = await dataSource.query('select name, headers_key_id, headers_nonce from upstreams where headers_key_id is not null order by name');
    expect(rows.map((row: { name: string }) => row.name)).toEqual(['everything', 'tickets']);
    expect(rows[0].headers_nonce).not.toEqual(rows[1].headers_nonce);
  });

  it('does not open headers moved onto another upstream, nor under another MCPGW_SECRETS_KEY', async () => {
    const registry = await start(FILE_ONE);
    await registry.createUpstream({ name: 'tickets', url: 'http://127.0.0.1:3004/mcp', transport: 'sse', headers: { 'x-api-key': 'k' }, timeoutMs: 1000, maxConcurrency: 2 });
    const store = new RegistryStore(dataSource, new HeaderCipher(Buffer.alloc(32, 9).toString('base64')));
    await expect(store.upstream('tickets')).rejects.toThrow('the stored headers of upstream "tickets" cannot be decrypted: they were encrypted under another MCPGW_SECRETS_KEY');
    await dataSource.query(`update upstreams set (headers_key_id, headers_nonce, headers_ciphertext, headers_auth_tag) =
      (select headers_key_id, headers_nonce, headers_ciphertext, headers_auth_tag from upstreams where name = 'everything') where name = 'tickets'`);
    await expect(new RegistryStore(dataSource, new HeaderCipher(SECRETS_KEY)).upstream('tickets')).rejects.toThrow('they do not authenticate');
  });

  it("follows another replica's changes and tells its listeners", async () => {
    const mine = await start(FILE_ONE);
    const theirs = await start(FILE_ONE);
    let changes = 0;
    mine.onChange(() => changes++);
    await mine.refreshIfChanged();
    expect(changes).toBe(0);

    await theirs.createServer({ id: 'support', project: 'beta', name: 'Support', selections: [] });
    await mine.refreshIfChanged();
    expect(mine.server('support')).toMatchObject({ project: 'beta', name: 'Support' });
    expect(changes).toBe(1);

    await theirs.updateServer('support', { description: 'Tickets' });
    await theirs.deleteServer('support');
    await mine.refreshIfChanged();
    expect(mine.server('support')).toBeUndefined();
    expect(changes).toBe(2);
  });

  it('refuses to start when stored headers were sealed under another MCPGW_SECRETS_KEY', async () => {
    const first = await start('');
    await first.createUpstream({ name: 'tickets', url: 'http://127.0.0.1:3004/mcp', transport: 'sse', headers: { 'x-api-key': 'k' }, timeoutMs: 1000, maxConcurrency: 2 });
    const config = parseRegistryConfig('');
    const rekeyed = new DatabaseServerRegistry(new RegistryStore(dataSource, new HeaderCipher(Buffer.alloc(32, 8).toString('base64'))), { config, allowLinkLocal: false });
    const refused = await rekeyed.start().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).lines()).toEqual([expect.stringMatching(/^MCPGW_SECRETS_KEY: the stored headers of upstream "tickets" cannot be decrypted/)]);
  });

  it('opens headers sealed under a previous key (MCPGW_SECRETS_PREVIOUS_KEYS) and seals them again under the new one at start', async () => {
    const first = await start('');
    await first.createUpstream({
      name: 'tickets',
      url: 'http://127.0.0.1:3004/mcp',
      transport: 'sse',
      headers: { 'x-api-key': 'rotated-secret' },
      timeoutMs: 1000,
      maxConcurrency: 2,
    });
    const [before] = await dataSource.query("select headers_key_id from upstreams where name = 'tickets'");
    const newKey = Buffer.alloc(32, 6).toString('base64');
    const rotated = new DatabaseServerRegistry(new RegistryStore(dataSource, new HeaderCipher(newKey, [SECRETS_KEY])), { config: parseRegistryConfig(''), allowLinkLocal: false });
    await rotated.start();
    rotated.stop();
    expect(rotated.upstream('tickets')?.headers).toEqual({ 'x-api-key': 'rotated-secret' });
    const [after] = await dataSource.query("select headers_key_id from upstreams where name = 'tickets'");
    expect(after.headers_key_id).not.toBe(before.headers_key_id);
    // The old key can now be dropped.
    expect(await new RegistryStore(dataSource, new HeaderCipher(newKey)).upstream('tickets')).toMatchObject({ headers: { 'x-api-key': 'rotated-secret' } });
  });

  it("seals an agent's static headers again under the new key at start, as an upstream's", async () => {
    const first = await start('');
    const card = AgentCard.fromJSON({ name: 'Desk', supportedInterfaces: [] });
    await first.createAgent({ name: 'desk', url: 'http://127.0.0.1:3010', project: 'alpha', auth: { type: 'static', headers: { authorization: 'Bearer agent-secret' } } }, card);
    const [before] = await dataSource.query("select headers_key_id from agents where name = 'desk'");
    const newKey = Buffer.alloc(32, 6).toString('base64');
    const rotated = new DatabaseServerRegistry(new RegistryStore(dataSource, new HeaderCipher(newKey, [SECRETS_KEY])), { config: parseRegistryConfig(''), allowLinkLocal: false });
    await rotated.start();
    rotated.stop();
    const [after] = await dataSource.query("select headers_key_id from agents where name = 'desk'");
    expect(after.headers_key_id).not.toBe(before.headers_key_id);
    expect((await new RegistryStore(dataSource, new HeaderCipher(newKey)).agent('desk')).auth).toEqual({ type: 'static', headers: { authorization: 'Bearer agent-secret' } });
  });

  it("seals an agent's OAuth client secret again under the new key at start, so the previous key can be dropped", async () => {
    const first = await start('');
    const card = AgentCard.fromJSON({ name: 'Partner', supportedInterfaces: [] });
    await first.createAgent({ name: 'partner', url: 'http://127.0.0.1:3012', project: 'alpha', auth: { type: 'oauth', clientId: 'arbor', clientSecret: 'partner-secret' } }, card);
    const [before] = await dataSource.query("select auth_secret_key_id from agents where name = 'partner'");
    const newKey = Buffer.alloc(32, 6).toString('base64');
    const rotated = new DatabaseServerRegistry(new RegistryStore(dataSource, new HeaderCipher(newKey, [SECRETS_KEY])), { config: parseRegistryConfig(''), allowLinkLocal: false });
    await rotated.start();
    rotated.stop();
    const [after] = await dataSource.query("select auth_secret_key_id from agents where name = 'partner'");
    expect(after.auth_secret_key_id).not.toBe(before.auth_secret_key_id);
    expect((await new RegistryStore(dataSource, new HeaderCipher(newKey)).agent('partner')).auth).toEqual({ type: 'oauth', clientId: 'arbor', clientSecret: 'partner-secret' });
  });

  it('without MCPGW_SECRETS_KEY serves upstreams without headers and refuses to store headers', async () => {
    const registry = await start(FILE_ONE.replace(/ {4}headers: .*\n/, ''), { withSecretsKey: false });
    expect(registry.upstream('everything')?.headers).toEqual({});
    await expect(
      registry.createUpstream({ name: 'tickets', url: 'http://127.0.0.1:3004/mcp', transport: 'sse', headers: { 'x-api-key': 'k' }, timeoutMs: 1000, maxConcurrency: 2 }),
    ).rejects.toThrow('MCPGW_SECRETS_KEY is not set');
  });

  it('refuses API changes to rows from the file, selections of unknown upstreams, and removing an upstream in use', async () => {
    const registry = await start(FILE_ONE);
    await expect(registry.updateUpstream('everything', { timeoutMs: 1 })).rejects.toThrow('comes from MCPGW_CONFIG');
    await expect(registry.deleteServer('forecast')).rejects.toThrow('comes from MCPGW_CONFIG');
    await expect(registry.createServer({ id: 'x', project: 'alpha', name: 'X', selections: [{ upstream: 'nowhere', tools: '*', resources: '*', prompts: '*' }] })).rejects.toThrow(
      'No upstream named "nowhere"',
    );
    await registry.createUpstream({ name: 'tickets', url: 'http://127.0.0.1:3004/mcp', transport: 'sse', headers: {}, timeoutMs: 1000, maxConcurrency: 2 });
    await registry.createServer({ id: 'support', project: 'beta', name: 'Support', selections: [{ upstream: 'tickets', tools: '*', resources: '*', prompts: '*' }] });
    await expect(registry.deleteUpstream('tickets')).rejects.toThrow('selected by the virtual servers support');
  });

  describe("MCPGW_CONFIG's agents", () => {
    const AGENTS = `
agents:
  - name: helpdesk
    url: http://127.0.0.1:3010
    project: alpha
    auth: { type: static, headers: { authorization: os.environ/EVERYTHING_TOKEN } }
servers:
  - id: agents
    project: alpha
    upstreams: [{ agent: helpdesk }]
`;

    it('syncs agents with their static headers sealed, and servers including them', async () => {
      const registry = await start(AGENTS);
      expect(registry.agents().map((agent) => ({ name: agent.name, project: agent.project, auth: agent.auth, source: agent.source }))).toEqual([
        { name: 'helpdesk', project: 'alpha', auth: { type: 'static', headers: { authorization: TOKEN } }, source: 'config' },
      ]);
      expect(registry.server('agents')?.selections).toEqual([{ upstream: 'helpdesk', kind: 'agent', tools: '*', resources: [], prompts: [] }]);
      const [row] = (await dataSource.query("select encode(headers_ciphertext, 'escape') as sealed from agents")) as { sealed: string }[];
      expect(row.sealed).not.toContain(TOKEN);
      // Gone from the file: gone from the database, its server with it.
      const emptied = await start('');
      expect(emptied.agents()).toEqual([]);
      expect(emptied.server('agents')).toBeUndefined();
    });

    it('stops the start naming an agent the file shares with an upstream, one a server lacks, and one of another project', async () => {
      const error = await start(`
upstreams:
  - { name: helpdesk, url: "http://127.0.0.1:3001/mcp" }
agents:
  - { name: helpdesk, url: "http://127.0.0.1:3010", project: alpha }
  - { name: billing, url: "http://127.0.0.1:3011", project: beta }
servers:
  - { id: one, project: alpha, upstreams: [{ agent: nobody }, { agent: billing }] }
`).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).lines()).toEqual(['MCPGW_CONFIG: agents[0].name: "helpdesk" is the name of an upstream too; agents and upstreams share one namespace']);
      const sync = await start(`
agents:
  - { name: billing, url: "http://127.0.0.1:3011", project: beta }
servers:
  - { id: one, project: alpha, upstreams: [{ agent: nobody }, { agent: billing }] }
`).catch((caught: unknown) => caught);
      expect((sync as ConfigError).lines()).toEqual([
        'MCPGW_CONFIG: servers[0].upstreams[0].agent: "nobody" is not an agent (neither in the file nor made through the admin API)',
        'MCPGW_CONFIG: servers[0].upstreams[1].agent: the agent "billing" belongs to project "beta", the server to "alpha"',
      ]);
    });
  });
});
