// The operations of a service as its OpenAPI document describes them: what the fuzz suite walks,
// so an endpoint added to any service is fuzzed without a line here.

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  example?: unknown;
  enum?: unknown[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
}

export interface Operation {
  /** `control-plane POST /api/v1/projects`: how failures name it. */
  name: string;
  method: string;
  /** With `{param}` placeholders. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** The JSON request body's schema, references resolved. */
  body?: JsonSchema;
  /** A multipart/form-data body instead: its valid fields, and which of them are files. */
  multipart?: MultipartForm;
  /** A WebSocket upgrade (GET with `Upgrade: websocket`). */
  upgrade?: boolean;
  /** Headers of this operation's requests (an API version, say). */
  headers?: Record<string, string>;
  /** Requests for this operation instead of FUZZ_RUNS (a path alias of an operation fuzzed in full). */
  runs?: number;
  /**
   * Where on the fake providers its requests may go (the configured bases): no request may reach
   * them elsewhere, and an answer to a request that reached them is the provider's to word.
   */
  upstreamBases?: readonly string[];
  /** A pass-through: its `{path}` takes the ways out of its base path. */
  passThrough?: boolean;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, { filename: string; contentType: string; content: string }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
// Long-lived event streams: a request would hold the connection open, whatever it sent.
const STREAMS = /\/sse$/;

export function operationsOf(service: string, document: OpenApiDocument): Operation[] {
  const schemas = document.components?.schemas ?? {};
  const resolve = (schema: JsonSchema | undefined, depth = 0): JsonSchema | undefined => {
    if (!schema || depth > 8) return schema;
    if (schema.$ref) return resolve(schemas[schema.$ref.replace('#/components/schemas/', '')], depth + 1);
    const properties = schema.properties && Object.fromEntries(Object.entries(schema.properties).map(([name, value]) => [name, resolve(value, depth + 1) ?? {}]));
    const items = schema.items && resolve(schema.items, depth + 1);
    return { ...schema, ...(properties ? { properties } : {}), ...(items ? { items } : {}) };
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (STREAMS.test(path)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const parameters = operation.parameters ?? [];
      const body = resolve(operation.requestBody?.content?.['application/json']?.schema);
      operations.push({
        name: `${service} ${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        // Placeholders the document did not declare (wildcard routes) are parameters all the same.
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
        queryParams: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        ...(body ? { body } : {}),
      });
    }
  }
  return operations;
}
