import { join } from 'node:path';
import request from 'supertest';
import { expectCommittedOpenApiDocument, expectServedApiReference, operationIdProblems, unresolvedSchemaRefs } from '@arbor/testing';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

/** The committed copy the web UI's typed client is generated from (apps/control-plane-web). */
const COMMITTED_DOCUMENT = join(__dirname, '../../openapi.json');

/** Routes that are not part of the API: health, metrics, and this document itself. */
const NOT_API = new Set(['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json']);

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

interface Operation {
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
}

interface OpenApi {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

describe('the OpenAPI document (/api/v1/openapi.json)', () => {
  let cp: ControlPlaneHarness;
  let document: OpenApi;
  /** Every route the running app registered, as `METHOD /open/api/{path}`. */
  let routes: { method: string; path: string }[];

  beforeAll(async () => {
    cp = await startControlPlane();
    const response = await request(cp.url).get('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    document = response.body as OpenApi;
    const router = (cp.service.app.getHttpAdapter().getInstance() as { router: { stack: ExpressLayer[] } }).router;
    routes = router.stack
      .flatMap((layer) => (layer.route ? Object.keys(layer.route.methods).map((method) => ({ method, path: layer.route!.path })) : []))
      // Middleware for every request (trace context, request log, metrics) sits on wildcard routes.
      .filter(({ path }) => !NOT_API.has(path) && !path.includes('*'))
      .map(({ method, path }) => ({ method, path: path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') }));
  });

  afterAll(() => cp.close());

  it('is served to anyone, as JSON, describing the Arbor control plane with bearer tokens', async () => {
    const response = await request(cp.url).get('/api/v1/openapi.json');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info).toMatchObject({ title: 'Arbor control plane', version: '1' });
    expect(document.components.securitySchemes['bearer']).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('is rendered for people at /api/v1/docs, everything from the service itself under its strict CSP', async () => {
    await expectServedApiReference(cp.url);
  });

  it('describes every route the app serves, with its method', () => {
    expect(routes.length).toBeGreaterThan(15);
    const missing = routes.filter(({ method, path }) => !document.paths[path]?.[method]).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
    // Nothing described that the app does not serve.
    const served = new Set(routes.map(({ method, path }) => `${method} ${path}`));
    const described = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    expect(described.filter((route) => !served.has(route) && !NOT_API.has(route.split(' ')[1]))).toEqual([]);
  });

  it('gives every operation a tag and a described success answer (a schema or words)', () => {
    const undescribed = routes.filter(({ method, path }) => {
      const operation = document.paths[path]?.[method];
      if (!operation) return false; // reported by the test above
      const success = Object.entries(operation.responses).filter(([status]) => /^2\d\d$/.test(status));
      // An undecorated handler gets a bare `200: {description: ''}` from the scanner.
      return !operation.tags?.length || success.length === 0 || success.some(([, answer]) => !answer.description && !answer.content);
    });
    expect(undescribed.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual([]);
  });

  it('marks every route that wants a token with the bearer scheme', async () => {
    const unmarked: string[] = [];
    for (const { method, path } of routes) {
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const response = await request(cp.url)[method as 'get'](concrete);
      const security = document.paths[path]?.[method]?.security ?? [];
      if (response.status === 401 && !security.some((requirement) => 'bearer' in requirement)) unmarked.push(`${method.toUpperCase()} ${path}`);
    }
    expect(unmarked).toEqual([]);
  });

  it('describes bodies and answers with their schemas, and errors with the one error body', () => {
    const createUser = document.paths['/api/v1/users']['post'];
    expect(createUser.requestBody?.content['application/json'].schema.$ref).toBe('#/components/schemas/CreateUserDto');
    expect(createUser.responses['201'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/UserResponse' });
    expect(createUser.responses['409'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(document.paths['/api/v1/me']['get'].responses['200'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/MeResponse' });
    expect(document.components.schemas).toHaveProperty('ErrorBody');
    expect(document.components.schemas['UpdateThemeDto']).toMatchObject({ properties: { theme: { enum: ['light', 'dark', 'system'] } } });
  });

  it('names every operation by an id of its own, and points every $ref at a schema it has (what a client generator needs)', () => {
    const ids = operationIdProblems(document);
    expect(ids.count).toBeGreaterThan(15);
    expect(ids.problems).toEqual([]);
    const refs = unresolvedSchemaRefs(document);
    expect(refs.count).toBeGreaterThan(10);
    expect(refs.unresolved).toEqual([]);
  });

  it('is the committed libs/control-plane/openapi.json the web UI is typed from (`npm run api:update` refreshes it)', () => {
    expectCommittedOpenApiDocument(document, COMMITTED_DOCUMENT);
  });
});
