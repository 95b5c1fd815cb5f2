// LiteLLM's response cache (`litellm_settings.cache`) as a LiteLLM user meets it: the official
// OpenAI and Anthropic SDKs and plain HTTP against the gateway, the gateway against
// tools/fake-providers (whose request log shows whether a call reached the upstream), the cache in
// memory and in Redis (TEST_REDIS_URL; each gateway its own namespace).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { MASTER_KEY, readChatStream, rejectionOf, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

type Gateway = RunningService<InstanceType<typeof aiGatewayService.schema>>;

const models = (fakeUrl: string) => `model_list:
  - model_name: fast
    litellm_params:
      model: openai/gpt-4o-mini
      api_base: ${fakeUrl}/v1
      api_key: sk-upstream
    model_info: { id: fast-primary, input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
  - model_name: embed
    litellm_params:
      model: openai/text-embedding-3-small
      api_base: ${fakeUrl}/v1
      api_key: sk-upstream
  - model_name: claude
    litellm_params:
      model: anthropic/claude-sonnet-4-5
      api_base: ${fakeUrl}/anthropic
      api_key: sk-upstream
`;

/** A port nothing listens on: a Redis that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function redisAddress(): { host: string; port: number } {
  const url = process.env['TEST_REDIS_URL'];
  if (!url) throw new Error("TEST_REDIS_URL is not set: add `redis: true` to this project's jest globals.arbor");
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 6379) };
}

describe.each([
  ['in memory', () => '    type: local'],
  ['in Redis', () => `    type: redis\n    host: ${redisAddress().host}\n    port: ${redisAddress().port}`],
])('the response cache %s', (_where, store) => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: Gateway;
  let openai: OpenAI;

  /** How many requests reached the upstream with `marker` in their body. */
  const upstreamCalls = async (marker: string) => (await fake.requests()).filter((seen) => seen.body.includes(marker)).length;
  const chat = (marker: string, extra: Record<string, unknown> = {}, client = openai) =>
    client.chat.completions
      .create({ model: 'fast', messages: [{ role: 'user', content: `hello ${marker}` }], ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const createKey = async (project: string): Promise<{ id: string; key: string }> => {
    const response = await post('/api/v1/keys', { project });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; key: string };
  };

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    const config = `${models(fake.url)}litellm_settings:
  cache: true
  cache_params:
${store()}
    namespace: arbor-test-${randomUUID()}
    ttl: 600
`;
    gateway = await startTestGateway(database, writeConfig(config));
    openai = new OpenAI({ apiKey: MASTER_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('answers a second identical chat completion without reaching the upstream, marked as a hit that costs nothing', async () => {
    const marker = randomUUID();
    const first = await chat(marker);
    expect(first.response.headers.get('x-arbor-cache-hit')).toBeNull();
    expect(Number(first.response.headers.get('x-arbor-response-cost'))).toBeGreaterThan(0);
    const second = await chat(marker);
    expect(second.response.headers.get('x-arbor-cache-hit')).toBe('true');
    expect(second.response.headers.get('x-arbor-response-cost')).toBe('0');
    expect(second.response.headers.get('x-arbor-model-id')).toBe('fast-primary');
    expect(second.data).toEqual(first.data);
    expect(await upstreamCalls(marker)).toBe(1);
  });

  it('keys on everything that changes the answer: another parameter is another answer, field order is not', async () => {
    const marker = randomUUID();
    await chat(marker, { temperature: 0.5 });
    await chat(marker, { temperature: 0.7 });
    expect(await upstreamCalls(marker)).toBe(2);
    const reordered = await post('/v1/chat/completions', { temperature: 0.5, messages: [{ content: `hello ${marker}`, role: 'user' }], model: 'fast' });
    expect(reordered.headers.get('x-arbor-cache-hit')).toBe('true');
    expect(await upstreamCalls(marker)).toBe(2);
  });

  it('replays a streamed answer as a stream the official SDK reads, without reaching the upstream', async () => {
    const marker = randomUUID();
    const ask = () =>
      openai.chat.completions
        .create({ model: 'fast', messages: [{ role: 'user', content: `stream ${marker}` }], stream: true, stream_options: { include_usage: true } })
        .withResponse();
    const first = await ask();
    const firstRead = await readChatStream(first.data);
    const second = await ask();
    expect(second.response.headers.get('x-arbor-cache-hit')).toBe('true');
    expect(second.response.headers.get('content-type')).toContain('text/event-stream');
    const secondRead = await readChatStream(second.data);
    expect(secondRead).toEqual(firstRead);
    expect(secondRead.text.trim()).toBe('fake answer from gpt-4o-mini');
    expect(secondRead.usage?.total_tokens).toBeGreaterThan(0);
    expect(await upstreamCalls(marker)).toBe(1);
  });

  it('caches completions, embeddings, messages (streamed too) and responses that are not stored', async () => {
    const marker = randomUUID();
    const anthropic = new Anthropic({ apiKey: MASTER_KEY, baseURL: gateway.url, maxRetries: 0 });
    const calls: [string, () => Promise<{ hit: string | null; body: unknown }>][] = [
      [
        'completions',
        async () => {
          const { data, response } = await openai.completions.create({ model: 'fast', prompt: `complete ${marker}` }).withResponse();
          return { hit: response.headers.get('x-arbor-cache-hit'), body: data };
        },
      ],
      [
        'embeddings',
        async () => {
          const { data, response } = await openai.embeddings.create({ model: 'embed', input: `embed ${marker}` }).withResponse();
          return { hit: response.headers.get('x-arbor-cache-hit'), body: data };
        },
      ],
      [
        'messages',
        async () => {
          const { data, response } = await anthropic.messages
            .create({ model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: `messages ${marker}` }] })
            .withResponse();
          return { hit: response.headers.get('x-arbor-cache-hit'), body: data };
        },
      ],
      [
        'streamed messages',
        async () => {
          const { data, response } = await anthropic.messages
            .create({ model: 'claude', max_tokens: 50, stream: true, messages: [{ role: 'user', content: `streamed messages ${marker}` }] })
            .withResponse();
          const events: string[] = [];
          for await (const event of data) events.push(event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? event.delta.text : event.type);
          return { hit: response.headers.get('x-arbor-cache-hit'), body: events };
        },
      ],
      [
        'responses with store: false',
        async () => {
          const { data, response } = await openai.responses.create({ model: 'fast', input: `responses ${marker}`, store: false }).withResponse();
          return { hit: response.headers.get('x-arbor-cache-hit'), body: data };
        },
      ],
    ];
    for (const [family, call] of calls) {
      const first = await call();
      const second = await call();
      expect({ family, hit: first.hit }).toEqual({ family, hit: null });
      expect({ family, hit: second.hit }).toEqual({ family, hit: 'true' });
      expect(second.body).toEqual(first.body);
    }
    expect(await upstreamCalls(marker)).toBe(calls.length);
  });

  it('never replays a stored response: each is a new object the next turn continues from', async () => {
    const marker = randomUUID();
    const first = await openai.responses.create({ model: 'fast', input: `stored ${marker}` });
    const second = await openai.responses.create({ model: 'fast', input: `stored ${marker}` });
    expect(second.id).not.toBe(first.id);
    expect(await upstreamCalls(marker)).toBe(2);
  });

  it('honours cache: {"no-cache": true} by asking the upstream, and keeps that fresh answer', async () => {
    const marker = randomUUID();
    await chat(marker);
    const fresh = await chat(marker, { cache: { 'no-cache': true } });
    expect(fresh.response.headers.get('x-arbor-cache-hit')).toBeNull();
    expect(await upstreamCalls(marker)).toBe(2);
    expect((await chat(marker)).response.headers.get('x-arbor-cache-hit')).toBe('true');
    expect(await upstreamCalls(marker)).toBe(2);
    // The control itself never reaches the upstream.
    expect((await fake.requests()).filter((seen) => seen.body.includes(marker)).every((seen) => !('cache' in (JSON.parse(seen.body) as object)))).toBe(true);
  });

  it('honours cache: {"no-store": true} by not keeping the answer', async () => {
    const marker = randomUUID();
    await chat(marker, { cache: { 'no-store': true } });
    const next = await chat(marker);
    expect(next.response.headers.get('x-arbor-cache-hit')).toBeNull();
    expect(await upstreamCalls(marker)).toBe(2);
  });

  it('forgets an answer after the ttl the request gave, and ignores one older than its s-maxage', async () => {
    const marker = randomUUID();
    await chat(marker, { cache: { ttl: 0.3 } });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await chat(marker)).response.headers.get('x-arbor-cache-hit')).toBeNull();
    expect(await upstreamCalls(marker)).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await chat(marker, { cache: { 's-maxage': 0 } })).response.headers.get('x-arbor-cache-hit')).toBeNull();
    expect((await chat(marker, { cache: { 's-maxage': 600 } })).response.headers.get('x-arbor-cache-hit')).toBe('true');
    expect(await upstreamCalls(marker)).toBe(3);
  });

  it('keeps each project its own answers, shared by the keys of one project, and records hits in spend', async () => {
    const marker = randomUUID();
    const alpha = await createKey('alpha');
    const alphaToo = await createKey('alpha');
    const beta = await createKey('beta');
    const as = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await chat(marker, {}, as(alpha.key));
    expect((await chat(marker, {}, as(beta.key))).response.headers.get('x-arbor-cache-hit')).toBeNull();
    expect(await upstreamCalls(marker)).toBe(2);
    const hit = await chat(marker, {}, as(alphaToo.key));
    expect(hit.response.headers.get('x-arbor-cache-hit')).toBe('true');
    expect(await upstreamCalls(marker)).toBe(2);

    const report = (await (await fetch(`${gateway.url}/api/v1/keys/${alphaToo.id}/spend`, { headers: { authorization: `Bearer ${MASTER_KEY}` } })).json()) as {
      spend: number;
      totals: Record<string, number>;
    };
    expect(report.totals).toMatchObject({ requests: 1, cache_hit_requests: 1, cost_usd: 0, prompt_tokens: 0, completion_tokens: 0 });
  });

  it('counts hits and misses by alias in the metrics', async () => {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(Number(/arbor_aigw_cache_hits_total\{alias="fast"[^}]*\} (\d+)/.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/arbor_aigw_cache_misses_total\{alias="fast"[^}]*\} (\d+)/.exec(text)?.[1])).toBeGreaterThan(0);
  });

  it('refuses malformed cache controls with 400 naming them', async () => {
    const error = await rejectionOf(chat(randomUUID(), { cache: { 'no-cache': 'yes' } }));
    expect(error).toMatchObject({ status: 400, param: 'cache' });
    expect(String((error as Error).message)).toContain('no-cache');
  });
});

describe('the response cache with Redis down', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: Gateway;

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    const config = `${models(fake.url)}litellm_settings:
  cache: true
  cache_params:
    type: redis
    host: 127.0.0.1
    port: ${await closedPort()}
    namespace: arbor-test-${randomUUID()}
`;
    gateway = await startTestGateway(database, writeConfig(config));
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('serves every call from the upstream', async () => {
    const openai = new OpenAI({ apiKey: MASTER_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const marker = randomUUID();
    for (let i = 0; i < 2; i += 1) {
      const { data, response } = await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: `down ${marker}` }] }).withResponse();
      expect(data.choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
      expect(response.headers.get('x-arbor-cache-hit')).toBeNull();
    }
    const stream = await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: `down ${marker}` }], stream: true });
    expect((await readChatStream(stream)).text.trim()).toBe('fake answer from gpt-4o-mini');
    expect((await fake.requests()).filter((seen) => seen.body.includes(marker))).toHaveLength(3);
  });
});
