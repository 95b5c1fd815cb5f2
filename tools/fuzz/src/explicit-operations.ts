// The operations the services' OpenAPI documents do not describe, written out: the gateways' model
// calls, stored resources, uploads, pass-throughs, WebSockets and MCP endpoints. The route-coverage
// test fails for any registered route none of these (or the documents) reaches.
import type { JsonSchema, MultipartForm, Operation } from './openapi-operations';
import { ANTHROPIC_BASE, COHERE_BASE, OPENAI_BASE, PASS_THROUGH_BASE } from './suite-under-test';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 25);
/** A path alias (`/chat/completions` of `/v1/chat/completions`) runs the same handler: fewer requests. */
const ALIAS_RUNS = Math.max(3, Math.ceil(RUNS / 5));

const example = (value: unknown): JsonSchema => ({ example: value });
const object = (properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, example(value)])),
});

/** The AI gateway's model calls: OpenAI's and Anthropic's wire formats, served below the framework. */
export const MODEL_CALLS: Operation[] = [
  {
    name: 'ai-gateway POST /v1/chat/completions',
    method: 'POST',
    path: '/v1/chat/completions',
    pathParams: [],
    queryParams: [],
    body: object({
      model: 'fuzz-chat',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 5,
      temperature: 0.5,
      stream: false,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      metadata: { team: 'fuzz' },
    }),
  },
  {
    name: 'ai-gateway POST /v1/chat/completions (streamed)',
    method: 'POST',
    path: '/v1/chat/completions',
    pathParams: [],
    queryParams: [],
    body: object({ model: 'fuzz-chat', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
  },
  {
    name: 'ai-gateway POST /v1/responses',
    method: 'POST',
    path: '/v1/responses',
    pathParams: [],
    queryParams: [],
    body: object({ model: 'fuzz-chat', instructions: 'be brief', input: 'hi', metadata: { team: 'fuzz' }, stream: false }),
  },
  {
    name: 'ai-gateway POST /v1/responses (a conversation)',
    method: 'POST',
    path: '/v1/responses',
    pathParams: [],
    queryParams: [],
    body: object({
      model: 'fuzz-chat',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call_output', call_id: 'c1', output: 'x' },
        { type: 'item_reference', id: 'msg_1' },
      ],
      previous_response_id: 'resp_1',
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
      background: false,
      store: true,
    }),
  },
  { name: 'ai-gateway GET /v1/responses/{id}', method: 'GET', path: '/v1/responses/{id}', pathParams: ['id'], queryParams: [] },
  { name: 'ai-gateway DELETE /v1/responses/{id}', method: 'DELETE', path: '/v1/responses/{id}', pathParams: ['id'], queryParams: [] },
  { name: 'ai-gateway POST /v1/responses/{id}/cancel', method: 'POST', path: '/v1/responses/{id}/cancel', pathParams: ['id'], queryParams: [] },
  {
    name: 'ai-gateway GET /v1/responses/{id}/input_items',
    method: 'GET',
    path: '/v1/responses/{id}/input_items',
    pathParams: ['id'],
    queryParams: ['limit', 'order', 'after', 'before'],
  },
  {
    name: 'ai-gateway POST /v1/responses/compact',
    method: 'POST',
    path: '/v1/responses/compact',
    pathParams: [],
    queryParams: [],
    body: object({ model: 'fuzz-chat', input: 'hi', instructions: 'be brief' }),
  },
  {
    name: 'ai-gateway POST /v1/responses/input_tokens',
    method: 'POST',
    path: '/v1/responses/input_tokens',
    pathParams: [],
    queryParams: [],
    body: object({ model: 'fuzz-chat', input: 'hi' }),
  },
  {
    name: 'ai-gateway POST /v1/completions',
    method: 'POST',
    path: '/v1/completions',
    pathParams: [],
    queryParams: [],
    body: object({ model: 'fuzz-chat', prompt: 'hi', max_tokens: 5 }),
  },
  { name: 'ai-gateway POST /v1/embeddings', method: 'POST', path: '/v1/embeddings', pathParams: [], queryParams: [], body: object({ model: 'fuzz-embed', input: ['hi'] }) },
  { name: 'ai-gateway GET /v1/models/{id}', method: 'GET', path: '/v1/models/{id}', pathParams: ['id'], queryParams: [] },
  {
    name: 'ai-gateway POST /v1/messages (bridged to chat)',
    method: 'POST',
    path: '/v1/messages',
    pathParams: [],
    queryParams: [],
    body: object({
      model: 'fuzz-chat',
      max_tokens: 5,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} } }],
      metadata: { user_id: 'fuzz' },
    }),
  },
  {
    name: 'ai-gateway POST /v1/messages (Anthropic, streamed)',
    method: 'POST',
    path: '/v1/messages',
    pathParams: [],
    queryParams: [],
    body: object({ model: 'fuzz-claude', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], stream: true }),
  },
  {
    name: 'ai-gateway POST /v1/messages/count_tokens',
    method: 'POST',
    path: '/v1/messages/count_tokens',
    pathParams: [],
    queryParams: [],
    body: object({ model: 'fuzz-chat', messages: [{ role: 'user', content: 'hi' }] }),
  },
];

/** MCP over Streamable HTTP: JSON-RPC requests of each kind, on the union endpoint and a virtual server. */
export const MCP_CALLS: Operation[] = ['/mcp', '/servers/{id}/mcp'].flatMap((path) =>
  (
    [
      ['initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }],
      ['tools/list', { cursor: 'x' }],
      ['tools/call', { name: path === '/mcp' ? 'echo__echo' : 'echo', arguments: { text: 'hi' } }],
      ['resources/read', { uri: 'note://one' }],
      ['prompts/get', { name: 'greet', arguments: {} }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'a', value: 'b' } }],
    ] as const
  ).map(([method, params]) => ({
    name: `mcp-gateway POST ${path} ${method}`,
    method: 'POST',
    path,
    pathParams: path.includes('{id}') ? ['id'] : [],
    queryParams: [],
    body: { type: 'object', properties: { jsonrpc: example('2.0'), id: example(1), method: example(method), params: object(params) } },
  })),
);

/** An operation on a path with no placeholders and a JSON body of these example values. */
function call(service: string, method: string, path: string, body?: Record<string, unknown>, extra: Partial<Operation> = {}): Operation {
  return {
    name: `${service} ${method} ${path}${extra.upgrade ? ' (WebSocket)' : ''}`,
    method,
    path,
    pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
    queryParams: [],
    ...(body ? { body: object(body) } : {}),
    ...extra,
  };
}

const ai = (method: string, path: string, body?: Record<string, unknown>, extra: Partial<Operation> = {}) => call('ai-gateway', method, path, body, extra);
/** A stored-resource call: it reaches the deployment's API below OPENAI_BASE, and relays its answers. */
const resource = (method: string, path: string, body?: Record<string, unknown>, extra: Partial<Operation> = {}) =>
  ai(method, path, body, { upstreamBases: [OPENAI_BASE], ...extra });
const mcp = (method: string, path: string, body?: Record<string, unknown>, extra: Partial<Operation> = {}) => call('mcp-gateway', method, path, body, extra);

const PNG = { filename: 'image.png', contentType: 'image/png', content: '\x89PNG\r\n\x1a\n fuzz' };
const WAV = { filename: 'speech.wav', contentType: 'audio/wav', content: 'RIFF fuzz WAVEfmt ' };
const multipart = (fields: Record<string, string>, files: MultipartForm['files']): Partial<Operation> => ({ multipart: { fields, files } });

/** Model calls beyond chat: images, audio, moderations, rerank, realtime sessions; the uploads with multipart bodies. */
export const MEDIA_CALLS: Operation[] = [
  ai('POST', '/v1/images/generations', { model: 'fuzz-image', prompt: 'a tree', n: 1, size: '1024x1024', response_format: 'b64_json' }),
  ai('POST', '/v1/images/edits', undefined, multipart({ model: 'fuzz-image', prompt: 'a tree', n: '1' }, { image: PNG, mask: PNG })),
  ai('POST', '/v1/images/variations', undefined, { ...multipart({ model: 'fuzz-image', n: '1' }, { image: PNG }), runs: ALIAS_RUNS }),
  ai('POST', '/v1/audio/transcriptions', undefined, multipart({ model: 'fuzz-transcribe', language: 'en', response_format: 'json', temperature: '0' }, { file: WAV })),
  ai('POST', '/v1/audio/translations', undefined, { ...multipart({ model: 'fuzz-transcribe' }, { file: WAV }), runs: ALIAS_RUNS }),
  ai('POST', '/v1/audio/speech', { model: 'fuzz-speech', input: 'hello', voice: 'alloy', response_format: 'mp3', speed: 1 }),
  ai('POST', '/v1/moderations', { model: 'fuzz-moderation', input: ['hi'] }),
  ai('POST', '/v1/rerank', { model: 'fuzz-rerank', query: 'tree', documents: ['oak', 'fir'], top_n: 1 }),
  ai('POST', '/v1/realtime/sessions', { model: 'fuzz-chat', modalities: ['text'], instructions: 'be brief' }),
  ai('POST', '/v1/realtime/client_secrets', { session: { type: 'realtime', model: 'fuzz-chat' }, expires_after: { anchor: 'created_at', seconds: 600 } }),
];

/** Files, batches, vector stores and the Assistants API, each object owned by the key's project. */
export const RESOURCE_CALLS: Operation[] = [
  ...['GET', 'POST', 'DELETE'].flatMap((method) =>
    ['/v1/files', '/v1/files/{id}', '/v1/files/{id}/content'].map((path) =>
      resource(method, path, undefined, {
        ...(method === 'POST' ? multipart({ purpose: 'assistants' }, { file: { filename: 'notes.jsonl', contentType: 'application/jsonl', content: '{"a":1}\n' } }) : {}),
        ...(method === 'GET' && path === '/v1/files' ? { queryParams: ['purpose', 'limit', 'order', 'after'] } : {}),
      }),
    ),
  ),
  resource('GET', '/v1/batches', undefined, { queryParams: ['limit', 'after'] }),
  resource('POST', '/v1/batches', { input_file_id: 'file-1', endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { team: 'fuzz' } }),
  resource('GET', '/v1/batches/{id}'),
  resource('POST', '/v1/batches/{id}', {}),
  resource('GET', '/v1/batches/{id}/cancel'),
  resource('POST', '/v1/batches/{id}/cancel'),
  resource('GET', '/v1/vector_stores', undefined, { queryParams: ['limit', 'order', 'after', 'before'] }),
  resource('POST', '/v1/vector_stores', { name: 'fuzz', file_ids: ['file-1'], metadata: { team: 'fuzz' } }),
  resource('DELETE', '/v1/vector_stores'),
  resource('GET', '/v1/vector_stores/{id}'),
  resource('POST', '/v1/vector_stores/{id}', { name: 'renamed' }),
  resource('DELETE', '/v1/vector_stores/{id}'),
  resource('POST', '/v1/vector_stores/{id}/files', { file_id: 'file-1' }),
  resource('GET', '/v1/vector_stores/{id}/files/{file_id}'),
  resource('DELETE', '/v1/vector_stores/{id}/files/{file_id}'),
  resource('POST', '/v1/vector_stores/{id}/search', { query: 'tree', max_num_results: 2 }),
  resource('GET', '/v1/assistants', undefined, { queryParams: ['limit', 'order', 'after'] }),
  resource('POST', '/v1/assistants', {
    model: 'fuzz-chat',
    name: 'fuzz',
    instructions: 'be brief',
    tools: [{ type: 'file_search' }],
    tool_resources: { file_search: { vector_store_ids: ['vs_1'] } },
  }),
  resource('DELETE', '/v1/assistants'),
  resource('GET', '/v1/assistants/{id}'),
  resource('POST', '/v1/assistants/{id}', { instructions: 'be briefer' }),
  resource('DELETE', '/v1/assistants/{id}'),
  resource('GET', '/v1/threads'),
  resource('POST', '/v1/threads', { messages: [{ role: 'user', content: 'hi', attachments: [{ file_id: 'file-1', tools: [{ type: 'file_search' }] }] }] }),
  resource('DELETE', '/v1/threads'),
  resource('POST', '/v1/threads/runs', { assistant_id: 'asst_1', thread: { messages: [{ role: 'user', content: 'hi' }] } }),
  resource('GET', '/v1/threads/{id}'),
  resource('POST', '/v1/threads/{id}', { metadata: { team: 'fuzz' } }),
  resource('DELETE', '/v1/threads/{id}'),
  resource('GET', '/v1/threads/{id}/messages', undefined, { queryParams: ['limit', 'order', 'after', 'run_id'] }),
  resource('POST', '/v1/threads/{id}/messages', { role: 'user', content: 'hi' }),
  resource('POST', '/v1/threads/{id}/runs', { assistant_id: 'asst_1', stream: false, additional_instructions: 'x' }),
  resource('GET', '/v1/threads/{id}/runs/{run_id}'),
  resource('POST', '/v1/threads/{id}/runs/{run_id}/submit_tool_outputs', { tool_outputs: [{ tool_call_id: 'c1', output: 'x' }] }),
];

/** Anthropic's Skills API at the gateway's root, served as through `/anthropic`: each id a hostile segment, no request leaving the Anthropic base. */
const SKILL_MD = { filename: 'fuzz/SKILL.md', contentType: 'text/markdown', content: '---\nname: fuzz\ndescription: Fuzzes\n---\n' };
const skills = (method: string, path: string, extra: Partial<Operation> = {}) =>
  ai(method, path, undefined, { upstreamBases: [ANTHROPIC_BASE], headers: { 'anthropic-version': '2023-06-01' }, ...extra });
const SKILLS_CALLS: Operation[] = [
  skills('GET', '/v1/skills', { queryParams: ['limit', 'page', 'source'] }),
  skills('POST', '/v1/skills', multipart({ display_name: 'fuzz' }, { 'files[]': SKILL_MD })),
  skills('GET', '/v1/skills/{id}'),
  skills('DELETE', '/v1/skills/{id}'),
  skills('GET', '/v1/skills/{id}/versions', { queryParams: ['limit', 'page'] }),
  skills('POST', '/v1/skills/{id}/versions', multipart({}, { 'files[]': SKILL_MD })),
  skills('GET', '/v1/skills/{id}/versions/{version}'),
  skills('DELETE', '/v1/skills/{id}/versions/{version}'),
];

/**
 * The vendors' APIs under `/openai/*` and `/anthropic/*`, and a configured pass_through_endpoints
 * entry: any method, a path that tries every way out of the configured base, and no request may
 * reach the provider outside it.
 */
export const PASS_THROUGH_CALLS: Operation[] = [
  ...['GET', 'POST', 'DELETE'].map((method) =>
    ai(method, '/openai/{path}', method === 'POST' ? { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } : undefined, {
      upstreamBases: [OPENAI_BASE],
      passThrough: true,
      queryParams: ['limit', 'after'],
    }),
  ),
  ...['GET', 'POST'].map((method) =>
    ai(method, '/anthropic/{path}', method === 'POST' ? { model: 'claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] } : undefined, {
      upstreamBases: [ANTHROPIC_BASE],
      passThrough: true,
      headers: { 'anthropic-version': '2023-06-01' },
    }),
  ),
  ...SKILLS_CALLS,
  ...['GET', 'POST'].map((method) => ai(method, '/fuzz-pass/{path}', method === 'POST' ? { input: 'hi' } : undefined, { upstreamBases: [PASS_THROUGH_BASE], passThrough: true })),
];

/** WebSocket upgrades: the handshake is what takes hostile input (path, query, credential); an accepted socket is closed at once. */
export const AI_UPGRADES: Operation[] = [
  ai('GET', '/v1/realtime', undefined, { upgrade: true, queryParams: ['model', 'intent'] }),
  ai('GET', '/v1/responses', undefined, { upgrade: true, queryParams: ['model'] }),
];

/** The same handlers under LiteLLM's unversioned paths (and Cohere's /v2/rerank). */
function aliases(operations: readonly Operation[], paths: readonly string[]): Operation[] {
  return paths.map((path) => {
    const [method, bare] = path.split(' ') as [string, string];
    const versioned = bare === '/v2/rerank' ? '/v1/rerank' : `/v1${bare}`;
    const upgrade = method === 'UPGRADE';
    const original = operations.find((operation) => operation.path === versioned && (upgrade ? operation.upgrade === true : operation.method === method && !operation.upgrade));
    if (!original) throw new Error(`no operation to alias as ${path}`);
    return { ...original, name: `${original.name.replace(versioned, bare)} (alias)`, path: bare, runs: ALIAS_RUNS };
  });
}

/** Every model call of the AI gateway (aliases included), each reaching the deployments' APIs only. */
export function aiGatewayCalls(): Operation[] {
  const versioned = [...MODEL_CALLS, ...MEDIA_CALLS, ...AI_UPGRADES].map((operation) => ({ ...operation, upstreamBases: [OPENAI_BASE, ANTHROPIC_BASE, COHERE_BASE] }));
  return [
    ...versioned,
    ...aliases(versioned, [
      'POST /chat/completions',
      'POST /completions',
      'POST /embeddings',
      'POST /responses',
      'POST /responses/compact',
      'GET /responses/{id}',
      'DELETE /responses/{id}',
      'POST /responses/{id}/cancel',
      'GET /responses/{id}/input_items',
      'POST /images/generations',
      'POST /images/edits',
      'POST /audio/transcriptions',
      'POST /audio/speech',
      'POST /moderations',
      'POST /rerank',
      'POST /v2/rerank',
      'POST /realtime/sessions',
      'POST /realtime/client_secrets',
      'UPGRADE /realtime',
      'UPGRADE /responses',
    ]),
  ];
}

const MODERN = '2026-07-28';
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
};

/** MCP's 2026-07-28 revision on the same endpoints: no initialize, the version and method in headers and `_meta`. */
export const MODERN_MCP_CALLS: Operation[] = ['/mcp', '/servers/{id}/mcp'].flatMap((path) =>
  (
    [
      ['server/discover', {}, undefined],
      ['tools/list', { cursor: 'x' }, undefined],
      ['tools/call', { name: path === '/mcp' ? 'echo__echo' : 'echo', arguments: { text: 'hi' } }, path === '/mcp' ? 'echo__echo' : 'echo'],
      ['resources/read', { uri: 'note://one' }, 'note://one'],
      ['prompts/get', { name: 'greet', arguments: {} }, 'greet'],
    ] as const
  ).map(([method, params, name]) => ({
    name: `mcp-gateway POST ${path} ${method} (${MODERN})`,
    method: 'POST',
    path,
    pathParams: path.includes('{id}') ? ['id'] : [],
    queryParams: [],
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) },
    body: { type: 'object', properties: { jsonrpc: example('2.0'), id: example(1), method: example(method), params: object({ ...params, _meta: modernMeta }) } },
  })),
);

/** The MCP gateway's other doors: the legacy SSE streams (bounded: the answer's status and headers), the WebSocket relay, OAuth metadata. */
export const MCP_OTHER_CALLS: Operation[] = [
  mcp('GET', '/sse'),
  mcp('GET', '/servers/{id}/sse'),
  mcp('GET', '/ws', undefined, { upgrade: true, headers: { 'sec-websocket-protocol': 'mcp' } }),
  mcp('GET', '/servers/{id}/ws', undefined, { upgrade: true, headers: { 'sec-websocket-protocol': 'mcp' } }),
  mcp('GET', '/.well-known/oauth-protected-resource/mcp'),
  mcp('GET', '/.well-known/oauth-protected-resource/servers/{id}/mcp'),
  // A2A agents: JSON-RPC at the base, HTTP+JSON and the card below it.
  mcp(
    'POST',
    '/agents/{name}',
    { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } },
    { headers: { 'a2a-version': '1.0' } },
  ),
  mcp('POST', '/agents/{name}/{rest}', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { headers: { 'a2a-version': '1.0' } }),
  mcp('GET', '/agents/{name}/{rest}'),
  // Per-person OAuth to an upstream: the browser's steps (a connect link, back from the suite's IdP, back from the upstream's).
  mcp('GET', '/oauth/connect/{upstream}', undefined, { queryParams: ['ticket'] }),
  mcp('GET', '/oauth/signed-in', undefined, { queryParams: ['code', 'state', 'iss'] }),
  mcp('GET', '/oauth/callback', undefined, { queryParams: ['code', 'state', 'error'] }),
];

/** Prometheus metrics: a GET anyone on the network may send, with whatever query and credential. */
export const metricsCall = (service: string): Operation => ({ ...call(service, 'GET', '/metrics', undefined, { queryParams: ['name[]'] }), runs: ALIAS_RUNS });

/** A path no route serves: the framework's 404 quotes the request no more than any other refusal. */
export const unknownRouteCall = (service: string): Operation => ({ ...call(service, 'GET', '/api/v1/no-such-route/{id}', undefined, { queryParams: ['q'] }), runs: ALIAS_RUNS });
