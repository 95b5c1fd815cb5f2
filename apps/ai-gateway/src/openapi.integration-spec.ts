// The AI gateway's OpenAPI document as its web UI's typed client (apps/ai-gateway-web, its
// generate-api target) reads it: the committed apps/ai-gateway/openapi.json, every operation
// under its own id, and the admin answers the UI shows described by their schemas.
import { join } from 'node:path';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, expectCommittedOpenApiDocument, operationIdProblems, TestDatabase, testIssuer, unresolvedSchemaRefs, unschemedOperations } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { startTestGateway } from './testing/gateway-test-support';

const COMMITTED_DOCUMENT = join(__dirname, '../openapi.json');

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

interface OpenApi {
  info: { title: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }> };
}

/** The admin API and LiteLLM's spend log, as the web UI calls them: each success with its schema. */
const UI_OPERATIONS = [
  'get /api/v1/keys',
  'post /api/v1/keys',
  'get /api/v1/keys/{id}',
  'patch /api/v1/keys/{id}',
  'post /api/v1/keys/{id}/block',
  'post /api/v1/keys/{id}/unblock',
  'post /api/v1/keys/{id}/rotate',
  'get /api/v1/keys/{id}/spend',
  'get /api/v1/spend',
  'get /api/v1/aliases',
  'get /spend/logs',
];

describe("the AI gateway's OpenAPI document (/api/v1/openapi.json)", () => {
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let document: OpenApi;

  beforeAll(async () => {
    database = await createTestDatabase();
    // A product of the suite, as the web UI meets it: with the control plane's routes (sync, dashboard). Nothing calls it here.
    gateway = await startTestGateway(database, undefined, {
      AIGW_OIDC_ISSUER_URL: testIssuer(),
      AIGW_CONTROL_PLANE_URL: 'http://127.0.0.1:9',
      AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
      AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
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
    expect(count).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });

  it('points every $ref at a schema it has (a client generator stops at the first that does not)', () => {
    const { count, unresolved } = unresolvedSchemaRefs(document);
    expect(count).toBeGreaterThan(10);
    expect(unresolved).toEqual([]);
  });

  it('describes each answer the web UI reads with its schema', () => {
    expect(unschemedOperations(document, UI_OPERATIONS)).toEqual([]);
    const created = document.paths['/api/v1/keys']?.['post']?.responses['201']?.content?.['application/json']?.schema;
    expect(created).toEqual({ $ref: '#/components/schemas/KeyResponse' });
    expect(document.components.schemas['KeyResponse']?.properties?.['key_alias']).toMatchObject({ type: 'string', nullable: true });
    expect(document.components.schemas['CreateKeyDto']?.properties?.['key_alias']).toMatchObject({ type: 'string', nullable: true });
    expect(document.components.schemas['ProjectSpendReport']?.required).toEqual(expect.arrayContaining(['totals', 'by_day', 'by_key', 'calls_by_day']));
    // GET /api/v1/keys without a project lists every project the caller may read.
    expect(document.paths['/api/v1/keys']?.['get']?.parameters).toEqual([expect.objectContaining({ name: 'project', in: 'query', required: false })]);
  });

  it('is the committed apps/ai-gateway/openapi.json the web UI is typed from (`npm run api:update` refreshes it)', () => {
    expectCommittedOpenApiDocument(document, COMMITTED_DOCUMENT);
  });
});
