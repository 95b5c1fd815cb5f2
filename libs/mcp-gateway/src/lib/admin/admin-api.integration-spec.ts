// The admin API as a platform team meets it: persons signed in through the suite's identity
// provider manage upstreams (workspace operators) and virtual servers (operators of the server's
// project), as the control plane grants mcp-gateway.operator. The built control plane, real
// PostgreSQL, real dev-idp tokens.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { McpGatewayConfig } from '@arbor/config';
import { DatabaseModule, PlatformModule, RunningService, ServiceDefinition, startService } from '@arbor/platform';
import { createTestDatabase, machineToken, personToken, startTestControlPlane, TestControlPlane, TestDatabase, testIssuer } from '@arbor/testing';
import { MCP_GATEWAY_ENTITIES, MCP_GATEWAY_MIGRATIONS } from '../database';
import { McpRegistryModule, McpRegistryOptions } from '../registry/mcp-registry.module';
import { ServerRegistry } from '../registry/server-registry';
import { CatalogueItem, UpstreamCatalogue, UpstreamHealth } from '../registry/upstream-catalogue';
import { ServerResponse, UpstreamResponse } from './dto/admin.responses';
import { CatalogueItemResponse } from './tools.controller';

const SECRET = 'Bearer everything-s3cret-token';

const CONFIG = `
upstreams:
  - name: everything
    url: http://127.0.0.1:3001/mcp
servers:
  - id: everything
    project: alpha
    upstreams: [{ upstream: everything }]
    guardrails: [pii]
guardrails:
  - guardrail_name: pii
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_mcp_call
      patterns: [{ pattern_type: prebuilt, pattern_name: email, action: MASK }]
  - guardrail_name: secrets
    litellm_params:
      guardrail: litellm_content_filter
      mode: post_mcp_call
      patterns: [{ pattern_type: prebuilt, pattern_name: aws_access_key, action: BLOCK }]
`;

/** What the runtime would know: two upstreams' items and the health of one. */
class FakeCatalogue extends UpstreamCatalogue {
  private readonly all: CatalogueItem[] = [
    { upstream: 'everything', kind: 'tool', name: 'echo', description: 'Echoes' },
    { upstream: 'everything', kind: 'prompt', name: 'simple-prompt' },
    { upstream: 'tickets', kind: 'tool', name: 'open-ticket' },
    { upstream: 'tickets', kind: 'tool', name: 'close-ticket' },
    { upstream: 'tickets', kind: 'resource', name: 'tickets://open' },
  ];

  items(upstream?: string): readonly CatalogueItem[] {
    return this.all.filter((item) => upstream === undefined || item.upstream === upstream);
  }

  health(upstream?: string): readonly UpstreamHealth[] {
    const all: UpstreamHealth[] = [{ upstream: 'tickets', state: 'up', lastSeenAt: '2026-11-21T10:00:00.000Z', protocolVersion: '2026-07-28' }];
    return all.filter((health) => upstream === undefined || health.upstream === upstream);
  }
}

@Module({ providers: [{ provide: UpstreamCatalogue, useClass: FakeCatalogue }], exports: [UpstreamCatalogue] })
class FakeRuntimeModule {}

function gatewayService(options: Omit<McpRegistryOptions, 'allowLinkLocal'>): ServiceDefinition<McpGatewayConfig> {
  return {
    schema: McpGatewayConfig,
    // As the app: admin bodies up to 5 MB.
    bodyLimit: '5mb',
    module: (config): DynamicModule => ({
      module: class McpAdminTestApp {},
      imports: [
        PlatformModule.forService(config, { readiness: 'database' }),
        DatabaseModule.forRoot({
          url: config.MCPGW_DATABASE_URL,
          variable: 'MCPGW_DATABASE_URL',
          applicationName: 'mcp-gateway',
          entities: MCP_GATEWAY_ENTITIES,
          migrations: MCP_GATEWAY_MIGRATIONS,
        }),
        McpRegistryModule.forOptions({ ...options, allowLinkLocal: false, imports: [FakeRuntimeModule] }),
      ],
    }),
  };
}

interface Answer {
  status: number;
  text: string;
  body: {
    error?: { code: string; message: string; details?: { fields: Record<string, string[]> } };
    upstreams?: UpstreamResponse[];
    servers?: ServerResponse[];
    items?: CatalogueItemResponse[];
    [field: string]: unknown;
  };
}

async function call(baseUrl: string, method: string, route: string, token?: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : {} };
}

describe('managing upstreams and virtual servers as a person with mcp-gateway.operator', () => {
  let controlPlane: TestControlPlane;
  let database: TestDatabase;
  let gateway: RunningService<McpGatewayConfig>;
  const tokens = { admin: '', alice: '', bob: '', carol: '' };
  const as = (who: keyof typeof tokens) => (method: string, route: string, body?: unknown) => call(gateway.url, method, route, tokens[who], body);

  beforeAll(async () => {
    controlPlane = await startTestControlPlane();
    Object.assign(tokens, controlPlane.tokens);
    await controlPlane.grant('alice', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.operator'] } });
    await controlPlane.grant('bob', { workspace: ['mcp-gateway'], projects: { alpha: ['mcp-gateway.viewer'] } });
    await controlPlane.grant('carol', { workspace: ['mcp-gateway', 'mcp-gateway.operator'], projects: {} });

    const configFile = path.join(mkdtempSync(path.join(tmpdir(), 'mcpgw-admin-')), 'gateway.yaml');
    writeFileSync(configFile, CONFIG);
    database = await createTestDatabase();
    gateway = await startService(
      gatewayService({
        configFile,
        secretsKey: Buffer.alloc(32, 5).toString('base64'),
        repositoryTokenHosts: ['git.example.com'],
        controlPlane: { issuer: testIssuer(), audience: 'mcp-gateway', baseUrl: controlPlane.url, clientId: 'mcp-gateway-m2m', clientSecret: 'dev-mcp-gateway-m2m-secret' },
      }),
      { MCPGW_DATABASE_URL: database.url, MCPGW_LISTEN_ADDR: '127.0.0.1:0', MCPGW_LOG: 'off' },
    );
  });

  afterAll(async () => {
    await gateway?.close();
    await controlPlane?.stop();
    await database?.drop();
  });

  it('lets a workspace operator add, change and remove an upstream, never showing header values', async () => {
    const created = await as('carol')('POST', '/api/v1/upstreams', {
      name: 'tickets',
      url: 'http://127.0.0.1:3004/mcp',
      transport: 'sse',
      headers: { Authorization: SECRET },
      max_concurrency: 3,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'tickets',
      transport: 'sse',
      header_names: ['authorization'],
      timeout_ms: 60000,
      max_concurrency: 3,
      source: 'api',
      health: { state: 'up', last_seen_at: '2026-11-21T10:00:00.000Z', last_error: null },
      protocol_version: '2026-07-28',
      tool_count: 2,
    });
    // The runtime sees it at once, with the header it needs.
    expect(gateway.app.get(ServerRegistry).upstream('tickets')?.headers).toEqual({ authorization: SECRET });

    const listed = await as('carol')('GET', '/api/v1/upstreams');
    expect(listed.body.upstreams?.map((upstream) => [upstream.name, upstream.source])).toEqual([
      ['everything', 'config'],
      ['tickets', 'api'],
    ]);
    const changed = await as('carol')('PATCH', '/api/v1/upstreams/tickets', { timeout_ms: 5000, headers: { 'x-api-key': 'other-s3cret' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ timeout_ms: 5000, header_names: ['x-api-key'] });
    for (const answer of [created, listed, changed, await as('carol')('GET', '/api/v1/upstreams/tickets')]) {
      expect(answer.text).not.toContain('s3cret');
    }

    expect((await as('carol')('POST', '/api/v1/upstreams', { name: 'tickets', url: 'http://127.0.0.1:3005/mcp' })).body.error?.code).toBe('upstream_exists');
    expect((await as('carol')('DELETE', '/api/v1/upstreams/tickets')).status).toBe(204);
    expect((await as('carol')('GET', '/api/v1/upstreams/tickets')).status).toBe(404);
    expect(gateway.app.get(ServerRegistry).upstream('tickets')).toBeUndefined();
  });

  it("sets an upstream's auth, showing everything but the OAuth client secret, which is stored sealed", async () => {
    const exchanged = await as('carol')('POST', '/api/v1/upstreams', {
      name: 'internal',
      url: 'http://127.0.0.1:3006/mcp',
      auth: { type: 'token_exchange', audience: 'arbor-tool-server' },
    });
    expect(exchanged.status).toBe(201);
    expect(exchanged.body['auth']).toEqual({ type: 'token_exchange', audience: 'arbor-tool-server' });
    expect(gateway.app.get(ServerRegistry).upstream('internal')?.auth).toEqual({ type: 'token_exchange', audience: 'arbor-tool-server' });

    const oauth = await as('carol')('POST', '/api/v1/upstreams', {
      name: 'wiki',
      url: 'http://127.0.0.1:3007/mcp',
      auth: { type: 'oauth', client_id: 'arbor', client_secret: 'wiki-s3cret', client_credentials: true },
    });
    expect(oauth.body['auth']).toEqual({ type: 'oauth', client_id: 'arbor', has_client_secret: true, client_credentials: true });
    // Named again without its secret: the stored one stays.
    const renamedScope = await as('carol')('PATCH', '/api/v1/upstreams/wiki', { auth: { type: 'oauth', client_id: 'arbor', scope: 'read' } });
    expect(renamedScope.body['auth']).toEqual({ type: 'oauth', client_id: 'arbor', scope: 'read', has_client_secret: true, client_credentials: false });
    expect(gateway.app.get(ServerRegistry).upstream('wiki')?.auth).toEqual({ type: 'oauth', clientId: 'arbor', clientSecret: 'wiki-s3cret', scope: 'read' });
    const rows = (await gateway.app.get(DataSource).query("select auth, auth_secret_ciphertext as sealed from upstreams where name = 'wiki'")) as {
      auth: unknown;
      sealed: Buffer | null;
    }[];
    expect(rows[0]?.auth).toEqual({ type: 'oauth', clientId: 'arbor', scope: 'read' });
    expect(rows[0]?.sealed?.toString('latin1')).not.toContain('wiki-s3cret');
    for (const answer of [oauth, renamedScope, await as('carol')('GET', '/api/v1/upstreams/wiki')]) expect(answer.text).not.toContain('s3cret');
    // The client-credentials grant asked for again without the secret (a form cannot repeat it): the stored one serves; another client has none.
    const machinesAgain = await as('carol')('PATCH', '/api/v1/upstreams/wiki', { auth: { type: 'oauth', client_id: 'arbor', client_credentials: true } });
    expect(machinesAgain.status).toBe(200);
    expect(machinesAgain.body['auth']).toEqual({ type: 'oauth', client_id: 'arbor', has_client_secret: true, client_credentials: true });
    const otherClient = await as('carol')('PATCH', '/api/v1/upstreams/wiki', { auth: { type: 'oauth', client_id: 'other', client_credentials: true } });
    expect(otherClient.status).toBe(400);
    expect(otherClient.body.error?.details?.fields?.['auth']).toEqual(['auth.client_credentials needs client_id and client_secret']);
    expect(gateway.app.get(ServerRegistry).upstream('wiki')?.auth).toEqual({ type: 'oauth', clientId: 'arbor', clientSecret: 'wiki-s3cret', clientCredentials: true });

    const bad = await as('carol')('POST', '/api/v1/upstreams', { name: 'bad', url: 'http://127.0.0.1:3008/mcp', auth: { type: 'token_exchange', client_secret: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.details?.fields?.['auth']).toEqual(['auth.client_secret is not a setting of token_exchange auth (type, audience, scope); auth.audience is required']);
    await as('carol')('DELETE', '/api/v1/upstreams/internal');
    await as('carol')('DELETE', '/api/v1/upstreams/wiki');
  });

  it('refuses upstreams on link-local and metadata addresses, and bad bodies naming each field', async () => {
    const metadata = await as('carol')('POST', '/api/v1/upstreams', { name: 'imds', url: 'http://169.254.169.254/latest/meta-data' });
    expect(metadata.status).toBe(400);
    expect(metadata.body.error?.code).toBe('upstream_url_refused');
    expect(metadata.body.error?.message).toContain('MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS=true');
    const linkLocal = await as('carol')('POST', '/api/v1/upstreams', { name: 'local', url: 'http://[fe80::1]:3001/mcp' });
    expect(linkLocal.body.error?.code).toBe('upstream_url_refused');

    const bad = await as('carol')('POST', '/api/v1/upstreams', { name: 'Bad', url: 'ftp://x', transport: 'ws', headers: { host: 'x' }, timeout_ms: 0 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error?.details?.fields ?? {}).sort()).toEqual(['headers', 'name', 'timeout_ms', 'transport', 'url']);

    const manyHeaders = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`x-h${index}`, 'v']));
    const tooMany = await as('carol')('POST', '/api/v1/upstreams', { name: 'many', url: 'http://127.0.0.1:1/mcp', headers: manyHeaders });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error?.details?.fields?.['headers']).toEqual(['headers: at most 32 headers may be given to an upstream, not 1000']);
    const huge = await as('carol')('POST', '/api/v1/upstreams', { name: 'huge', url: 'http://127.0.0.1:1/mcp', headers: { authorization: 'x'.repeat(64 * 1024) } });
    expect(huge.status).toBe(400);
    expect(huge.body.error?.details?.fields?.['headers']).toEqual(['headers: the value of "authorization" is longer than 8192 characters']);
    expect(gateway.app.get(ServerRegistry).upstream('many')).toBeUndefined();
  });

  it("refuses {{project.repository_token}} to a workspace operator's upstream on a host no administrator approved", async () => {
    const asksForToken = { authorization: 'Bearer {{project.repository_token}}' };
    const own = await as('carol')('POST', '/api/v1/upstreams', { name: 'mine', url: 'http://127.0.0.1:3007/mcp', headers: asksForToken });
    expect(own.status).toBe(400);
    expect(own.body.error?.code).toBe('repository_token_not_allowed');
    expect(own.body.error?.message).toContain('its host 127.0.0.1 is not one an administrator approved');
    expect(own.body.error?.message).toContain('MCPGW_REPOSITORY_TOKEN_HOSTS');
    expect(gateway.app.get(ServerRegistry).upstream('mine')).toBeUndefined();

    // An approved host gets it; moving that upstream elsewhere, or adding the placeholder to another, does not.
    expect((await as('carol')('POST', '/api/v1/upstreams', { name: 'git', url: 'https://git.example.com/mcp', headers: asksForToken })).status).toBe(201);
    const moved = await as('carol')('PATCH', '/api/v1/upstreams/git', { url: 'http://127.0.0.1:3008/mcp' });
    expect(moved.body.error?.code).toBe('repository_token_not_allowed');
    expect(gateway.app.get(ServerRegistry).upstream('git')?.url).toBe('https://git.example.com/mcp');
    expect((await as('carol')('POST', '/api/v1/upstreams', { name: 'plain', url: 'http://127.0.0.1:3009/mcp' })).status).toBe(201);
    const added = await as('carol')('PATCH', '/api/v1/upstreams/plain', { headers: asksForToken });
    expect(added.body.error?.code).toBe('repository_token_not_allowed');
    expect(gateway.app.get(ServerRegistry).upstream('plain')?.headers).toEqual({});
    for (const name of ['git', 'plain']) expect((await as('carol')('DELETE', `/api/v1/upstreams/${name}`)).status).toBe(204);
  });

  it('keeps upstreams to workspace operators, while project operators and viewers may read them', async () => {
    const refused = await as('alice')('POST', '/api/v1/upstreams', { name: 'mine', url: 'http://127.0.0.1:3006/mcp' });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain('mcp-gateway.operator at workspace level');
    expect((await as('alice')('GET', '/api/v1/upstreams')).status).toBe(200);
    expect((await as('bob')('GET', '/api/v1/upstreams')).status).toBe(200);
    expect((await as('bob')('POST', '/api/v1/upstreams', { name: 'bobs', url: 'http://127.0.0.1:3006/mcp' })).status).toBe(403);
  });

  it("lets project operators manage their project's servers only, against known upstreams", async () => {
    const created = await as('alice')('POST', '/api/v1/servers', { id: 'alpha-tools', project: 'alpha', upstreams: [{ upstream: 'everything', tools: ['echo'], prompts: [] }] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'alpha-tools',
      project: 'alpha',
      name: 'alpha-tools',
      description: null,
      upstreams: [{ upstream: 'everything', tools: ['echo'], resources: '*', prompts: [] }],
      source: 'api',
    });
    expect(gateway.app.get(ServerRegistry).server('alpha-tools')?.selections[0].tools).toEqual(['echo']);

    const unknown = await as('alice')('POST', '/api/v1/servers', { id: 'lost', project: 'alpha', upstreams: [{ upstream: 'nowhere' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.code).toBe('unknown_upstream');
    expect((await as('alice')('POST', '/api/v1/servers', { id: 'beta-tools', project: 'beta', upstreams: [] })).status).toBe(403);
    expect((await as('bob')('POST', '/api/v1/servers', { id: 'bobs', project: 'alpha', upstreams: [] })).status).toBe(403);
    expect((await as('alice')('PATCH', '/api/v1/servers/alpha-tools', { project: 'beta' })).status).toBe(403);

    expect((await as('carol')('POST', '/api/v1/servers', { id: 'beta-tools', project: 'beta', upstreams: [] })).status).toBe(201);
    expect((await as('alice')('GET', '/api/v1/servers/beta-tools')).status).toBe(403);
    const mine = await as('alice')('GET', '/api/v1/servers');
    expect(mine.body.servers?.map((server) => server.id)).toEqual(['alpha-tools', 'everything']);
    expect((await as('alice')('GET', '/api/v1/servers?project=beta')).status).toBe(403);
    expect((await as('carol')('GET', '/api/v1/servers')).body.servers?.map((server) => server.id)).toEqual(['alpha-tools', 'beta-tools', 'everything']);

    const renamed = await as('alice')('PATCH', '/api/v1/servers/alpha-tools', { name: 'Alpha tools', description: 'Echo only' });
    expect(renamed.body).toMatchObject({ name: 'Alpha tools', description: 'Echo only' });
    expect((await as('alice')('PATCH', '/api/v1/servers/alpha-tools', { description: null })).body.description).toBeNull();
    expect((await as('alice')('DELETE', '/api/v1/servers/alpha-tools')).status).toBe(204);
    expect(gateway.app.get(ServerRegistry).server('alpha-tools')).toBeUndefined();
  });

  it("lets project operators name their servers' guardrails, refusing names MCPGW_CONFIG lacks", async () => {
    expect((await as('alice')('GET', '/api/v1/servers/everything')).body).toMatchObject({ id: 'everything', guardrails: ['pii'], source: 'config' });
    const created = await as('alice')('POST', '/api/v1/servers', { id: 'guarded', project: 'alpha', upstreams: [{ upstream: 'everything' }], guardrails: ['secrets', 'pii'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'guarded', guardrails: ['secrets', 'pii'] });
    expect(gateway.app.get(ServerRegistry).server('guarded')?.guardrails).toEqual(['secrets', 'pii']);

    const unknown = await as('alice')('POST', '/api/v1/servers', { id: 'lost', project: 'alpha', upstreams: [], guardrails: ['pii', 'presidio'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toEqual({
      code: 'unknown_guardrail',
      message: 'No guardrail named "presidio" is configured; the gateway has "pii", "secrets".',
      details: { guardrails: ['presidio'], configured: ['pii', 'secrets'] },
    });
    expect((await as('alice')('GET', '/api/v1/servers/lost')).status).toBe(404);
    const badShape = await as('alice')('PATCH', '/api/v1/servers/guarded', { guardrails: 'pii' });
    expect([badShape.status, badShape.body.error?.code, Object.keys(badShape.body.error?.details?.fields ?? {})]).toEqual([400, 'invalid_request', ['guardrails']]);
    const unknownOnUpdate = await as('alice')('PATCH', '/api/v1/servers/guarded', { guardrails: ['nobody'] });
    expect([unknownOnUpdate.status, unknownOnUpdate.body.error?.code]).toEqual([400, 'unknown_guardrail']);

    const cleared = await as('alice')('PATCH', '/api/v1/servers/guarded', { guardrails: [] });
    expect(cleared.body).toMatchObject({ guardrails: [] });
    expect(gateway.app.get(ServerRegistry).server('guarded')?.guardrails).toBeUndefined();
    expect((await as('alice')('PATCH', '/api/v1/servers/guarded', { guardrails: ['pii'] })).body).toMatchObject({ guardrails: ['pii'] });
    expect((await as('alice')('GET', '/api/v1/servers/guarded')).body).toMatchObject({ guardrails: ['pii'] });
    expect((await as('alice')('DELETE', '/api/v1/servers/guarded')).status).toBe(204);
  });

  it('quotes a megabyte project, server or upstream name back only as a 64-character excerpt', async () => {
    const huge = 'p'.repeat(1_000_000);
    const answers = [
      // The permission check names the project it was asked about; a move is validated before it is asked.
      await as('alice')('POST', '/api/v1/servers', { id: 'big', project: huge, upstreams: [] }),
      await as('alice')('PATCH', '/api/v1/servers/everything', { project: huge }),
      await as('carol')('POST', '/api/v1/servers', { id: 'big', project: 'alpha', upstreams: [{ upstream: huge }] }),
      await as('carol')('GET', `/api/v1/servers/${'p'.repeat(8000)}`),
      await as('carol')('PATCH', `/api/v1/upstreams/${'p'.repeat(8000)}`, { timeout_ms: 1000 }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([403, 400, 400, 404, 404]);
    for (const answer of answers) {
      expect(answer.text.length).toBeLessThan(1_000);
      expect(answer.text).not.toContain('p'.repeat(65));
    }
    expect(answers[0].body.error?.message).toContain(`on project ${'p'.repeat(64)}…`);
  });

  it('refuses API changes to what MCPGW_CONFIG declares', async () => {
    for (const answer of [
      await as('carol')('PATCH', '/api/v1/upstreams/everything', { timeout_ms: 1000 }),
      await as('carol')('DELETE', '/api/v1/upstreams/everything'),
      await as('alice')('PATCH', '/api/v1/servers/everything', { name: 'Mine now' }),
      await as('alice')('DELETE', '/api/v1/servers/everything'),
    ]) {
      expect(answer.status).toBe(409);
      expect(answer.body.error?.code).toBe('managed_by_config');
      expect(answer.body.error?.message).toContain('comes from MCPGW_CONFIG');
    }
  });

  it('refuses a NUL in a server id or upstream name with 400 naming it, before the permission check looks the project up', async () => {
    for (const [method, route] of [
      ['GET', '/api/v1/servers/a%00b'],
      ['PATCH', '/api/v1/servers/a%00b'],
      ['DELETE', '/api/v1/servers/a%00b'],
      ['GET', '/api/v1/upstreams/a%00b'],
      ['PATCH', '/api/v1/upstreams/a%00b'],
      ['DELETE', '/api/v1/upstreams/a%00b'],
    ]) {
      const answer = await as('carol')(method, route, method === 'PATCH' ? { name: 'x' } : undefined);
      expect({ method, route, status: answer.status, code: answer.body.error?.code }).toEqual({ method, route, status: 400, code: 'invalid_request' });
      expect(Object.keys(answer.body.error?.details?.fields ?? {})).toEqual([route.startsWith('/api/v1/servers') ? 'id' : 'name']);
    }
  });

  it('lists the catalogue with the servers exposing each item, by upstream or by server', async () => {
    await as('carol')('POST', '/api/v1/upstreams', { name: 'tickets', url: 'http://127.0.0.1:3004/mcp' });
    await as('alice')('POST', '/api/v1/servers', { id: 'alpha-support', project: 'alpha', upstreams: [{ upstream: 'tickets', tools: ['open-ticket'], resources: [] }] });
    await as('carol')('POST', '/api/v1/servers', { id: 'beta-support', project: 'beta', upstreams: [{ upstream: 'tickets' }] });

    const all = await as('carol')('GET', '/api/v1/tools');
    expect(all.status).toBe(200);
    expect(all.body.items).toContainEqual({
      upstream: 'tickets',
      kind: 'tool',
      name: 'open-ticket',
      description: null,
      servers: ['alpha-support', 'beta-support'],
      destructive: false,
      required_roles: { 'alpha-support': 'viewer', 'beta-support': 'viewer' },
    });
    expect(all.body.items).toContainEqual({
      upstream: 'everything',
      kind: 'tool',
      name: 'echo',
      description: 'Echoes',
      servers: ['everything'],
      destructive: false,
      required_roles: { everything: 'viewer' },
    });

    // Alice operates alpha only: beta's servers are not hers to see.
    const tickets = await as('alice')('GET', '/api/v1/tools?upstream=tickets');
    expect(tickets.body.items?.map((item) => [item.name, item.servers])).toEqual([
      ['open-ticket', ['alpha-support']],
      ['close-ticket', []],
      ['tickets://open', []],
    ]);
    const exposed = await as('alice')('GET', '/api/v1/tools?server=alpha-support');
    expect(exposed.body.items?.map((item) => item.name)).toEqual(['open-ticket']);
    expect((await as('alice')('GET', '/api/v1/tools?server=beta-support')).status).toBe(403);
    expect((await as('alice')('GET', '/api/v1/tools?upstream=nowhere')).status).toBe(404);
    // Bob views alpha: he reads what alice reads there, and changes nothing.
    const viewed = await as('bob')('GET', '/api/v1/tools?server=alpha-support');
    expect(viewed.body.items?.map((item) => item.name)).toEqual(['open-ticket']);
    expect((await as('bob')('GET', '/api/v1/tools?server=beta-support')).status).toBe(403);
    const alicesServers = (await as('alice')('GET', '/api/v1/servers')).body.servers?.map((server) => server.id);
    expect(alicesServers).toContain('alpha-support');
    expect((await as('bob')('GET', '/api/v1/servers')).body.servers?.map((server) => server.id)).toEqual(alicesServers);
    expect((await as('bob')('GET', '/api/v1/servers/alpha-support')).status).toBe(200);
    expect((await as('bob')('GET', '/api/v1/servers/beta-support')).status).toBe(403);
    expect((await as('bob')('GET', '/api/v1/servers/alpha-support/tool-calls')).status).toBe(200);
    expect((await as('bob')('PATCH', '/api/v1/servers/alpha-support', { description: 'mine now' })).status).toBe(403);
    expect((await as('bob')('DELETE', '/api/v1/servers/alpha-support')).status).toBe(403);
  });

  it('refuses callers without a person token for this gateway', async () => {
    const none = await call(gateway.url, 'GET', '/api/v1/servers');
    expect(none.status).toBe(401);
    expect(none.body.error?.code).toBe('missing_token');
    // mcp-gateway-m2m's tokens are for the control plane (audience control-plane), not for this API.
    const wrongAudience = await call(gateway.url, 'GET', '/api/v1/servers', await machineToken('mcp-gateway-m2m'));
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.body.error?.code).toBe('invalid_token');
    const forged = `${tokens.alice.slice(0, tokens.alice.lastIndexOf('.'))}.c2lnbmF0dXJl`;
    expect((await call(gateway.url, 'GET', '/api/v1/servers', forged)).status).toBe(401);
  });

  it('answers 503 while the control plane cannot say', async () => {
    await controlPlane.stop();
    // Nobody asked about admin before: nothing cached to fall back on.
    const unavailable = await call(gateway.url, 'GET', '/api/v1/upstreams', tokens.admin);
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error?.code).toBe('control_plane_unavailable');
  });
});

describe('an MCP gateway without control-plane settings', () => {
  it('tells a person which settings its admin API lacks', async () => {
    const database = await createTestDatabase();
    const gateway = await startService(gatewayService({ controlPlane: { issuer: testIssuer(), audience: 'mcp-gateway' } }), {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: '127.0.0.1:0',
      MCPGW_LOG: 'off',
    });
    try {
      const answer = await call(gateway.url, 'GET', '/api/v1/servers', await personToken('alice'));
      expect(answer.status).toBe(503);
      expect(answer.body.error?.code).toBe('control_plane_not_configured');
      expect(answer.body.error?.message).toContain('MCPGW_CONTROL_PLANE_URL, MCPGW_M2M_CLIENT_ID, MCPGW_M2M_CLIENT_SECRET');
      expect(answer.body.error?.message).not.toContain('MCPGW_OIDC_ISSUER_URL');
    } finally {
      await gateway.close();
      await database.drop();
    }
  });
});
