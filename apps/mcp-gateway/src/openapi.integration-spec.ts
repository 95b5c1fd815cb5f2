// The MCP gateway's OpenAPI document as its web UI's typed client (apps/mcp-gateway-web, its
// generate-api target) reads it: the committed apps/mcp-gateway/openapi.json, every operation
// under its own id, and the admin answers the UI shows described by their schemas.
import { join } from 'node:path';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, expectCommittedOpenApiDocument, operationIdProblems, TestDatabase, testIssuer, unresolvedSchemaRefs, unschemedOperations } from '@arbor/testing';
import { mcpGatewayService } from './mcp-gateway.module';

const COMMITTED_DOCUMENT = join(__dirname, '../openapi.json');

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
}

/** The admin API as the web UI calls it: each success that has a body, with its schema. */
const UI_OPERATIONS = [
  'get /api/v1/upstreams',
  'post /api/v1/upstreams',
  'get /api/v1/upstreams/{name}',
  'patch /api/v1/upstreams/{name}',
  'get /api/v1/servers',
  'post /api/v1/servers',
  'get /api/v1/servers/{id}',
  'patch /api/v1/servers/{id}',
  'get /api/v1/servers/{id}/tools',
  'post /api/v1/servers/{id}/tools/{tool}/call',
  'get /api/v1/servers/{id}/tool-calls',
  'get /api/v1/tools',
  'get /api/v1/keys',
  'post /api/v1/keys',
  'patch /api/v1/keys/{id}',
  'get /api/v1/tool-calls',
  'get /api/v1/agents',
  'post /api/v1/agents',
  'get /api/v1/agents/{name}',
  'patch /api/v1/agents/{name}',
  'post /api/v1/agents/{name}/refresh',
  'get /api/v1/agents/{name}/calls',
  'get /api/v1/me/connections',
];

describe("the MCP gateway's OpenAPI document (/api/v1/openapi.json)", () => {
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof mcpGatewayService.schema>>;
  let document: OpenApi;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Every route the web UI meets: a product of the suite (sync, dashboard) that keeps secrets (per-person OAuth connections). Nothing calls the control plane here.
    gateway = await startService(mcpGatewayService, {
      MCPGW_DATABASE_URL: database.url,
      MCPGW_LISTEN_ADDR: '127.0.0.1:0',
      MCPGW_LOG: 'off',
      MCPGW_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      MCPGW_OIDC_ISSUER_URL: testIssuer(),
      MCPGW_CONTROL_PLANE_URL: 'http://127.0.0.1:9',
      MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
      MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
    });
    const response = await fetch(`${gateway.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApi;
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
  });

  it('names every operation by an id of its own', () => {
    const { count, problems } = operationIdProblems(document);
    expect(count).toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });

  it('points every $ref at a schema it has (a client generator stops at the first that does not)', () => {
    const { count, unresolved } = unresolvedSchemaRefs(document);
    expect(count).toBeGreaterThan(10);
    expect(unresolved).toEqual([]);
  });

  it('describes each answer the web UI reads with its schema', () => {
    expect(unschemedOperations(document, UI_OPERATIONS)).toEqual([]);
    expect(document.paths['/api/v1/upstreams']?.['post']?.responses['201']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/UpstreamResponse' });
    // The auth of an upstream is one of three shapes, told apart by its type.
    expect(document.components.schemas['UpstreamResponse']?.properties?.['auth']).toMatchObject({ discriminator: { propertyName: 'type' } });
    // Lists without ?project= answer every project the caller may read.
    for (const path of ['/api/v1/servers', '/api/v1/keys', '/api/v1/agents']) {
      expect(document.paths[path]?.['get']?.parameters).toEqual([expect.objectContaining({ name: 'project', in: 'query', required: false })]);
    }
  });

  it('is the committed apps/mcp-gateway/openapi.json the web UI is typed from (`npm run api:update` refreshes it)', () => {
    expectCommittedOpenApiDocument(document, COMMITTED_DOCUMENT);
  });
});
