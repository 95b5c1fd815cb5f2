import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What each service promises about its API reference page (GET /api/v1/docs): public HTML that
 * renders /api/v1/openapi.json, loads every script and stylesheet from the service itself, has no
 * inline script or style, and whose files answer 200 under the page's own strict CSP.
 */
export async function expectServedApiReference(baseUrl: string): Promise<void> {
  const page = await fetch(`${baseUrl}/api/v1/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const policy = page.headers.get('content-security-policy') ?? '';
  expect(policy).toMatch(/(^|; )script-src 'self'(;|$)/);
  expect(policy).toMatch(/(^|; )style-src 'self'(;|$)/);
  const html = await page.text();
  expect(html).toContain('data-openapi-url="/api/v1/openapi.json"');
  expect([...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle="/g)].map((match) => match[0])).toEqual([]);
  const sources = [...html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
  expect(sources.length).toBeGreaterThanOrEqual(2);
  for (const source of sources) {
    // From the service itself: a path on its own origin, never another host.
    expect(source).toMatch(/^\/[^/]/);
    const file = await fetch(`${baseUrl}${source}`);
    expect({ source, status: file.status, policy: file.headers.get('content-security-policy') }).toEqual({ source, status: 200, policy });
    await file.arrayBuffer();
  }
  const document = await fetch(`${baseUrl}/api/v1/openapi.json`);
  expect(document.status).toBe(200);
}

/**
 * The served OpenAPI document is the committed copy a product's UI is typed from (its
 * `generate-api` target): `ARBOR_UPDATE_OPENAPI=1` (`npm run api:update`) writes it, otherwise
 * a difference fails, naming the file and the script that refreshes it.
 */
export function expectCommittedOpenApiDocument(served: unknown, committedFile: string): void {
  const text = `${JSON.stringify(served, null, 2)}\n`;
  if (process.env['ARBOR_UPDATE_OPENAPI'] === '1') writeFileSync(committedFile, text);
  // Compared as text: a document from fetch() and one from JSON.parse() in a jest test come from different realms.
  const committed = existsSync(committedFile) ? JSON.stringify(JSON.parse(readFileSync(committedFile, 'utf8'))) : undefined;
  if (committed !== JSON.stringify(served)) {
    throw new Error(
      `${path.relative(process.cwd(), committedFile)} is not the OpenAPI document the service serves: run \`npm run api:update\` and commit what it writes (the UI's typed client is generated from it).`,
    );
  }
}

/** The parts of an OpenAPI 3 document the checks below read. */
export interface OpenApiShape {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components?: { schemas?: Record<string, unknown> };
}

/**
 * How many operations the document has, and its operation-id faults: an operation without one (as
 * `get /path`) and an id used again (the id): a client generator names a function per id, and one
 * that is missing or repeats is dropped or collides.
 */
export function operationIdProblems(document: OpenApiShape): { count: number; problems: string[] } {
  const seen = new Set<string>();
  const problems: string[] = [];
  let count = 0;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      count++;
      const id = operation.operationId;
      if (id === undefined) problems.push(`${method} ${path} has no operationId`);
      else if (seen.has(id)) problems.push(`${id} is used twice`);
      else seen.add(id);
    }
  }
  return { count, problems };
}

/** The schema `$ref`s of the document, and the names among them it has no schema for (a generator stops at the first). */
export function unresolvedSchemaRefs(document: OpenApiShape): { count: number; unresolved: string[] } {
  const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1] as string);
  const schemas = document.components?.schemas ?? {};
  return { count: refs.length, unresolved: [...new Set(refs)].filter((name) => !(name in schemas)) };
}

/**
 * Of `operations` (`'get /api/v1/keys'`, as a UI calls them), those whose successes are not all
 * described by a JSON schema (or that have no success at all): the UI's typed client would read
 * them untyped.
 */
export function unschemedOperations(document: OpenApiShape, operations: readonly string[]): string[] {
  return operations.filter((route) => {
    const [method, path] = route.split(' ') as [string, string];
    const success = Object.entries(document.paths[path]?.[method]?.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
    return success.length === 0 || success.some(([, answer]) => !answer.content?.['application/json']?.schema);
  });
}
