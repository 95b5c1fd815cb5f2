// Hostile input against every operation of every service, read from each service's own OpenAPI
// document (a new endpoint is fuzzed without a line here), plus the gateways' model calls and MCP
// endpoints, which the documents do not describe. For every request: never a 5xx; every refusal
// JSON with a stable code and a message, echoing no more than an excerpt; and, for the admin
// APIs, nothing written to the database by a refused request.
//
// Seeded: FUZZ_SEED=<n> reruns exactly the requests a failure report names; FUZZ_RUNS=<n> sets
// the requests per operation (25 in `npm test`, a minute or so for the whole suite).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { DatabaseFingerprint } from './database-fingerprint';
import { answerProblem, describeRequest, HostileRequest, hostileRequests, send, Target } from './hostile-requests';
import { MALFORMED_AUTHORIZATION } from './hostile-values';
import { JsonSchema, Operation, operationsOf } from './openapi-operations';
import { MASTER_KEY, startSuite, SuiteUnderTest } from './suite-under-test';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261125);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 25);

/** Each operation its own seed, so that adding one does not change the requests of the others. */
function seedOf(operation: Operation): number {
  return (SEED ^ createHash('sha256').update(operation.name).digest().readInt32LE(0)) | 0;
}

async function documentedOperations(service: string, url: string): Promise<Operation[]> {
  const response = await fetch(`${url}/api/v1/openapi.json`);
  if (!response.ok) throw new Error(`${service} serves no OpenAPI document (${response.status})`);
  return operationsOf(service, (await response.json()) as Parameters<typeof operationsOf>[1]);
}

/** How many answers of each status the run saw, to show it reached past the door. */
const statuses = new Map<number, number>();
afterAll(() => process.stdout.write(`fuzz answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`));

/** Every failing operation, with the request that showed it; an empty list when all held. */
async function fuzz(operations: Operation[], target: Target, database?: DatabaseFingerprint): Promise<string[]> {
  const failures: string[] = [];
  for (const operation of operations) {
    const result = await fc.check(
      fc.asyncProperty(hostileRequests(operation, target), async (hostile: HostileRequest) => {
        const before = database && (await database.take());
        const answer = await send(target.url, hostile);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const problem = answerProblem(answer);
        if (problem) throw new Error(problem);
        if (database && answer.status >= 400 && (await database.take()) !== before) {
          throw new Error(`refused with ${answer.status} (${answer.text.slice(0, 120)}) but wrote to the database`);
        }
      }),
      { seed: seedOf(operation), numRuns: RUNS, endOnFailure: true },
    );
    if (result.failed) {
      const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      const request = result.counterexample ? describeRequest(result.counterexample[0]) : '(no request)';
      failures.push(`${operation.name}: ${error}\n    request: ${request}\n    reproduce: FUZZ_SEED=${SEED}`);
    }
  }
  return failures;
}

const example = (value: unknown): JsonSchema => ({ example: value });
const object = (properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, example(value)])),
});

/** The AI gateway's model calls: OpenAI's and Anthropic's wire formats, served below the framework. */
const MODEL_CALLS: Operation[] = [
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
  { name: 'ai-gateway POST /v1/responses', method: 'POST', path: '/v1/responses', pathParams: [], queryParams: [], body: object({ model: 'fuzz-chat', instructions: 'be brief', input: 'hi', metadata: { team: 'fuzz' }, stream: false }) },
  {
    name: 'ai-gateway POST /v1/responses (a conversation)',
    method: 'POST',
    path: '/v1/responses',
    pathParams: [],
    queryParams: [],
    body: object({
      model: 'fuzz-chat',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }, { type: 'function_call_output', call_id: 'c1', output: 'x' }, { type: 'item_reference', id: 'msg_1' }],
      previous_response_id: 'resp_1',
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
      background: false,
      store: true,
    }),
  },
  { name: 'ai-gateway GET /v1/responses/{id}', method: 'GET', path: '/v1/responses/{id}', pathParams: ['id'], queryParams: [] },
  { name: 'ai-gateway DELETE /v1/responses/{id}', method: 'DELETE', path: '/v1/responses/{id}', pathParams: ['id'], queryParams: [] },
  { name: 'ai-gateway POST /v1/responses/{id}/cancel', method: 'POST', path: '/v1/responses/{id}/cancel', pathParams: ['id'], queryParams: [] },
  { name: 'ai-gateway GET /v1/responses/{id}/input_items', method: 'GET', path: '/v1/responses/{id}/input_items', pathParams: ['id'], queryParams: ['limit', 'order', 'after', 'before'] },
  { name: 'ai-gateway POST /v1/responses/compact', method: 'POST', path: '/v1/responses/compact', pathParams: [], queryParams: [], body: object({ model: 'fuzz-chat', input: 'hi', instructions: 'be brief' }) },
  { name: 'ai-gateway POST /v1/responses/input_tokens', method: 'POST', path: '/v1/responses/input_tokens', pathParams: [], queryParams: [], body: object({ model: 'fuzz-chat', input: 'hi' }) },
  { name: 'ai-gateway POST /v1/completions', method: 'POST', path: '/v1/completions', pathParams: [], queryParams: [], body: object({ model: 'fuzz-chat', prompt: 'hi', max_tokens: 5 }) },
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
  { name: 'ai-gateway POST /v1/messages/count_tokens', method: 'POST', path: '/v1/messages/count_tokens', pathParams: [], queryParams: [], body: object({ model: 'fuzz-chat', messages: [{ role: 'user', content: 'hi' }] }) },
];

/** MCP over Streamable HTTP: JSON-RPC requests of each kind, on the union endpoint and a virtual server. */
const MCP_CALLS: Operation[] = ['/mcp', '/servers/{id}/mcp'].flatMap((path) =>
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

describe('hostile input against the built suite', () => {
  let suite: SuiteUnderTest;

  beforeAll(async () => {
    suite = await startSuite();
  }, 180_000);

  afterAll(() => suite?.stop());

  async function withDatabase<T>(url: string, run: (database: DatabaseFingerprint) => Promise<T>): Promise<T> {
    const database = await DatabaseFingerprint.open(url);
    try {
      return await run(database);
    } finally {
      await database.close();
    }
  }

  it('every malformed bearer token is a 401 invalid_token challenge, in every service', async () => {
    const doors = [
      { name: 'control plane', url: `${suite.controlPlane.url}/api/v1/me`, method: 'GET' },
      { name: 'AI gateway admin API', url: `${suite.aiGateway.service.url}/api/v1/keys`, method: 'GET' },
      { name: 'MCP gateway admin API', url: `${suite.mcpGateway.service.url}/api/v1/upstreams`, method: 'GET' },
      { name: 'MCP gateway /mcp', url: `${suite.mcpGateway.service.url}/mcp`, method: 'POST' },
    ];
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } });
    const answers: string[] = [];
    for (const door of doors) {
      for (const authorization of MALFORMED_AUTHORIZATION.filter((value) => /^Bearer \S/.test(value))) {
        const response = await fetch(door.url, {
          method: door.method,
          headers: { authorization, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
          ...(door.method === 'POST' ? { body: initialize } : {}),
        });
        const challenge = response.headers.get('www-authenticate') ?? '';
        if (response.status !== 401 || !/^Bearer .*error="invalid_token"/.test(challenge)) answers.push(`${door.name} ${authorization.slice(0, 40)}: ${response.status} ${challenge}`);
      }
    }
    expect(answers).toEqual([]);
  });

  it('the control plane: every operation of its OpenAPI document', async () => {
    const { controlPlane } = suite;
    const operations = await documentedOperations('control-plane', controlPlane.url);
    expect(operations.length).toBeGreaterThan(20);
    const target: Target = { url: controlPlane.url, authorization: `Bearer ${controlPlane.tokens.admin}`, validParams: suite.ids.controlPlane };
    expect(await withDatabase(controlPlane.databaseUrl, (database) => fuzz(operations, target, database))).toEqual([]);
  });

  it("the AI gateway's admin API: every operation of its OpenAPI document", async () => {
    const { aiGateway } = suite;
    const operations = await documentedOperations('ai-gateway', aiGateway.service.url);
    expect(operations.map((operation) => operation.name)).toEqual(expect.arrayContaining(['ai-gateway POST /api/v1/keys', 'ai-gateway GET /api/v1/spend']));
    const target: Target = { url: aiGateway.service.url, authorization: `Bearer ${MASTER_KEY}`, validParams: suite.ids.aiGateway };
    expect(await withDatabase(aiGateway.database.url, (database) => fuzz(operations, target, database))).toEqual([]);
  });

  it("the AI gateway's model calls", async () => {
    // Successful calls record spend in the background: the database is not compared here.
    const target: Target = { url: suite.aiGateway.service.url, authorization: `Bearer ${suite.virtualKey}`, validParams: { id: ['fuzz-chat', 'fuzz-embed'] } };
    expect(await fuzz(MODEL_CALLS, target)).toEqual([]);
  });

  it("the MCP gateway's admin API: every operation of its OpenAPI document", async () => {
    const { mcpGateway, controlPlane } = suite;
    const operations = await documentedOperations('mcp-gateway', mcpGateway.service.url);
    expect(operations.map((operation) => operation.name)).toEqual(expect.arrayContaining(['mcp-gateway POST /api/v1/upstreams', 'mcp-gateway POST /api/v1/servers']));
    const target: Target = { url: mcpGateway.service.url, authorization: `Bearer ${controlPlane.tokens.alice}`, validParams: suite.ids.mcpGateway };
    expect(await withDatabase(mcpGateway.database.url, (database) => fuzz(operations, target, database))).toEqual([]);
  });

  it("the MCP gateway's MCP endpoints", async () => {
    const target: Target = {
      url: suite.mcpGateway.service.url,
      authorization: `Bearer ${suite.controlPlane.tokens.alice}`,
      validParams: { id: ['tools'] },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    };
    expect(await withDatabase(suite.mcpGateway.database.url, (database) => fuzz(MCP_CALLS, target, database))).toEqual([]);
  });
});
