// What a chat completion costs the gateway, counted rather than timed: how many times the call's
// JSON is parsed, serialised again, or its body copied whole, per call. Counts do not move with
// the machine, so npm test can hold them: the next feature that re-serialises a plain answer, or
// parses the request a second time, fails here and has to say why in this file. (The time itself
// is `npm run bench:gateway`'s, and where it goes `npm run bench:gateway-profile`'s.)
//
// The client sends prepared bytes over plain HTTP and the fake upstream is a process of its own,
// so what is counted is the gateway's work. A prompt of 8 kB makes the body's copies stand out from
// the small strings a call handles anyway (headers, ids, the usage object): a copy or a JSON
// document counts as the body's when it is at least BODY_SIZED long.
import http from 'node:http';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { MASTER_KEY, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

const PROMPT = 'Count the words in this text. '.repeat(280);
const BODY_SIZED = 4096;
const CALLS = 20;

interface Counts {
  /** JSON.parse calls (any size). */
  parses: number;
  /** JSON.parse of a document the body's size. */
  bodyParses: number;
  /** JSON.stringify calls whose result is the body's size. */
  bodySerialisations: number;
  /** Buffers or strings made from the body's bytes (Buffer.concat, Buffer.from, toString) of the body's size. */
  bodyCopies: number;
}

/** `run()` with the body-sized JSON and copies in this process counted, per call of CALLS. */
async function counted(run: () => Promise<void>): Promise<Counts> {
  const counts: Counts = { parses: 0, bodyParses: 0, bodySerialisations: 0, bodyCopies: 0 };
  const { parse, stringify } = JSON;
  const { concat, from } = Buffer;
  const { toString } = Buffer.prototype;
  JSON.parse = function (this: unknown, text: string, ...rest: unknown[]) {
    counts.parses++;
    if (String(text).length >= BODY_SIZED) counts.bodyParses++;
    return parse.call(this, text, ...(rest as [])) as unknown;
  } as typeof JSON.parse;
  JSON.stringify = function (this: unknown, ...args: unknown[]) {
    const out = stringify.apply(this, args as Parameters<typeof JSON.stringify>);
    if (typeof out === 'string' && out.length >= BODY_SIZED) counts.bodySerialisations++;
    return out;
  } as typeof JSON.stringify;
  Buffer.concat = function (this: typeof Buffer, ...args: Parameters<typeof Buffer.concat>) {
    const out = concat.apply(this, args);
    if (out.length >= BODY_SIZED) counts.bodyCopies++;
    return out;
  } as typeof Buffer.concat;
  Buffer.from = function (this: typeof Buffer, ...args: unknown[]) {
    const out = (from as (...a: unknown[]) => Buffer).apply(this, args);
    if (out.length >= BODY_SIZED && !(args[0] instanceof ArrayBuffer)) counts.bodyCopies++;
    return out;
  } as typeof Buffer.from;
  Buffer.prototype.toString = function (this: Buffer, ...args: unknown[]) {
    const out = (toString as (...a: unknown[]) => string).apply(this, args);
    if (out.length >= BODY_SIZED) counts.bodyCopies++;
    return out;
  };
  try {
    await run();
  } finally {
    Object.assign(JSON, { parse, stringify });
    Object.assign(Buffer, { concat, from });
    Buffer.prototype.toString = toString;
  }
  return { parses: counts.parses / CALLS, bodyParses: counts.bodyParses / CALLS, bodySerialisations: counts.bodySerialisations / CALLS, bodyCopies: counts.bodyCopies / CALLS };
}

describe('the hot path, counted', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let key: string;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  /** One chat completion as prepared bytes; resolves with the status once the answer has been read to its end. */
  const call = (body: Buffer): Promise<number> =>
    new Promise((resolve, reject) => {
      const { hostname, port } = new URL(gateway.url);
      const request = http.request(
        {
          hostname,
          port,
          path: '/v1/chat/completions',
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length },
        },
        (response) => {
          response.resume();
          response.once('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.once('error', reject);
      request.end(body);
    });
  const calls = async (body: Buffer): Promise<void> => {
    for (let index = 0; index < CALLS; index++) expect(await call(body)).toBe(200);
  };

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    // What a default config has on: a priced alias, a key with rpm, tpm and budget limits, spend recorded.
    gateway = await startTestGateway(
      database,
      writeConfig(`model_list:
  - model_name: chat
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
`),
    );
    const created = await fetch(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'bench', aliases: ['chat'], rpm_limit: 1_000_000, tpm_limit: 1_000_000_000, max_budget: 1000, budget_duration: '30d' }),
    });
    expect(created.status).toBe(201);
    key = ((await created.json()) as { key: string }).key;
  });

  afterAll(async () => {
    agent.destroy();
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('a plain chat completion parses its request once and passes its answer on without parsing or serialising it again', async () => {
    const body = Buffer.from(JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: PROMPT }] }));
    await calls(body); // warm: the key, the plan and the prices are cached after the first call
    const counts = await counted(() => calls(body));
    expect(counts).toEqual({
      // The request, and the answer's usage object (found by its name, a few dozen bytes).
      parses: 2,
      bodyParses: 1,
      // The request as the upstream gets it: the gateway may add defaults and drop parameters.
      bodySerialisations: 1,
      // The request's text for JSON.parse, the upstream request's bytes, and the answer with
      // `usage.cost` spliced into its bytes (the rest of the answer is not touched).
      bodyCopies: 3,
    });
  });

  it('a streamed chat completion passes its events on as they come: only the usage chunk is parsed', async () => {
    const body = Buffer.from(JSON.stringify({ model: 'chat', stream: true, messages: [{ role: 'user', content: PROMPT }] }));
    await calls(body);
    const counts = await counted(() => calls(body));
    // The request as for a plain call; the events go on as they came, the last one (usage) parsed.
    expect(counts).toEqual({ parses: 2, bodyParses: 1, bodySerialisations: 1, bodyCopies: 2 });
  });
});
