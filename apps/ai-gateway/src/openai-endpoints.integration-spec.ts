// Completions, embeddings, usage in streams, cost and the gateway's metrics, as application
// developers and operators meet them: the official OpenAI SDK (or plain HTTP where the SDK hides
// what is checked) against the gateway, the gateway against tools/fake-providers.
import http from 'node:http';
import OpenAI, { APIError } from 'openai';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { MASTER_KEY, sdkClient, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, fakeUrl: string, more = '') => `
  - model_name: ${alias}
    litellm_params: { model: openai/${model}, api_base: ${fakeUrl}/v1, api_key: sk-upstream${more} }
    model_info: { id: ${alias}-deployment }`;

interface SeenRequest {
  path: string;
  body: string;
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

/** A streamed chat completion over plain HTTP, with its HTTP trailers (which fetch does not expose). */
function streamWithTrailers(url: string, body: unknown): Promise<{ text: string; trailers: NodeJS.Dict<string> }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
    });
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ text, trailers: response.trailers }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

describe('ai-gateway completions, embeddings, stream usage, cost and metrics', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;

  const lastSeen = async (path: string): Promise<Record<string, unknown>> => {
    const seen = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as SeenRequest[];
    const request = seen.filter((r) => r.path.endsWith(path)).at(-1);
    return JSON.parse(request?.body ?? '{}') as Record<string, unknown>;
  };

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    gateway = await startTestGateway(
      database,
      writeConfig(
        `model_list:${[
          deployment('mini', 'gpt-4o-mini', fake.url),
          deployment('instruct', 'gpt-3.5-turbo-instruct', fake.url),
          deployment('embed', 'text-embedding-3-small', fake.url),
          deployment('breaks', 'fail-midstream', fake.url),
          deployment('drops', 'fail-drop', fake.url),
          deployment('silent', 'fail-timeout', fake.url, ', timeout: 0.3'),
          deployment('stalls', 'pause-5000', fake.url, ', timeout: 0.3'),
        ].join('')}\n`,
      ),
    );
    client = sdkClient(gateway);
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it('answers legacy completions, plain and streamed', async () => {
    const plain = await client.completions.create({ model: 'instruct', prompt: 'Say hi', max_tokens: 5 });
    expect(plain.object).toBe('text_completion');
    expect(plain.choices[0]?.text).toBe('fake answer from gpt-3.5-turbo-instruct');
    expect((await lastSeen('/v1/completions'))['prompt']).toBe('Say hi');

    const stream = await client.completions.create({ model: 'instruct', prompt: 'Say hi', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe('fake answer from gpt-3.5-turbo-instruct ');
  });

  it('answers embeddings, decoding the base64 vectors the SDK asks for by default', async () => {
    const { data, response } = await client.embeddings.create({ model: 'embed', input: ['one', 'two'], dimensions: 4 }).withResponse();
    expect(data.data).toHaveLength(2);
    expect(data.data[1]?.embedding).toHaveLength(4);
    expect(data.data[1]?.embedding[0]).toBeCloseTo(2 / 7, 5);
    expect(data.usage.prompt_tokens).toBe(7);
    expect(await lastSeen('/v1/embeddings')).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'base64', dimensions: 4 });
    // 7 tokens × $0.02 per million
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 0.02e-6, 15);
  });

  it('reports the cost of a call at the model price, and the time the gateway itself took', async () => {
    const { response } = await client.chat.completions.create({ model: 'mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    // 7 prompt tokens × $0.15/M + 5 completion tokens × $0.60/M
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 0.15e-6 + 5 * 0.6e-6, 15);
    const overhead = Number(response.headers.get('x-arbor-overhead-duration-ms'));
    expect(overhead).toBeGreaterThanOrEqual(0);
    expect(overhead).toBeLessThanOrEqual(Number(response.headers.get('x-arbor-response-duration-ms')));
  });

  it('always asks the upstream for stream usage but shows it only to a client that asked', async () => {
    const stream = await client.chat.completions.create({ model: 'mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('fake answer from gpt-4o-mini ');
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    expect((await lastSeen('/v1/chat/completions'))['stream_options']).toEqual({ include_usage: true });

    const withUsage = await client.chat.completions.create({
      model: 'mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const last = (await collect(withUsage)).at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12, cost: expect.any(Number) });
  });

  it('sends the cost of a streamed call as an HTTP trailer, since it is known only at the end', async () => {
    const { text, trailers } = await streamWithTrailers(gateway.url, { model: 'mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(Number(trailers['x-arbor-response-cost'])).toBeCloseTo(7 * 0.15e-6 + 5 * 0.6e-6, 15);
  });

  it('ends a stream whose upstream fails midway with an OpenAI-format error event the SDK raises', async () => {
    const stream = await client.chat.completions.create({ model: 'breaks', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const consume = async () => {
      for await (const chunk of stream) void chunk;
    };
    await expect(consume()).rejects.toThrow(APIError);
    await expect(
      (async () => {
        const dropped = await client.chat.completions.create({ model: 'drops', messages: [{ role: 'user', content: 'hi' }], stream: true });
        for await (const chunk of dropped) void chunk;
      })(),
    ).rejects.toThrow(/upstream connection closed before the answer was complete/);
  });

  it('answers 408 when the upstream sends nothing within the deployment timeout, and ends a stream that stalls as long', async () => {
    const impatient = new OpenAI({ apiKey: MASTER_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const silent = impatient.chat.completions.create({ model: 'silent', messages: [{ role: 'user', content: 'hi' }] });
    await expect(silent).rejects.toMatchObject({ status: 408, code: 'timeout', type: 'timeout' });

    const stream = await impatient.chat.completions.create({ model: 'stalls', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const seen: string[] = [];
    const consume = async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? '');
    };
    await expect(consume()).rejects.toThrow(APIError);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('answers a malformed body or an unknown route in the OpenAI-format envelope, and admin routes in the platform one', async () => {
    const post = (path: string, body: string) =>
      fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' }, body });
    const malformed = await post('/v1/chat/completions', '{"model": "mini",');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    const unknown = await post('/v1/no-such-route', '{}');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'invalid_request_error', code: 'unknown_path' });
    const admin = await post('/api/v1/keys', '{"project":');
    expect(((await admin.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('refuses a body declared over 100 MB before reading it, and compressed bodies, in the OpenAI-format envelope', async () => {
    const tooLarge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json', 'content-length': String(101 * 1024 * 1024) },
      });
      request.on('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          request.destroy();
          resolve({ status: response.statusCode ?? 0, body });
        });
      });
      request.on('error', reject);
      request.write('{"model": "mini", "messages": [');
    });
    expect(tooLarge.status).toBe(413);
    expect((JSON.parse(tooLarge.body) as { error: unknown }).error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });

    const gzipped = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{}',
    });
    expect(gzipped.status).toBe(415);
    expect(((await gzipped.json()) as { error: { code: string } }).error.code).toBe('unsupported_content_encoding');
  });

  it('refuses JSON nested past 64 levels in the OpenAI-format envelope, before any upstream sees it', async () => {
    const deep = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
      body: `{"model":"mini","messages":[{"role":"user","content":"deep"}],"metadata":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
    });
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { error: unknown }).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/nested too deeply/) });
  });

  it('accepts bodies of several megabytes (long contexts, base64 images)', async () => {
    const image = `data:image/png;base64,${Buffer.alloc(3 * 1024 * 1024, 1).toString('base64')}`;
    const completion = await client.chat.completions.create({
      model: 'mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: image } },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
  });

  it('exposes Prometheus series by alias, deployment and provider', async () => {
    await client.chat.completions.create({ model: 'mini', messages: [{ role: 'user', content: 'hi' }] });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const labels = 'alias="mini",deployment="mini-deployment",provider="openai"';
    expect(metrics).toMatch(new RegExp(`arbor_aigw_requests_total\\{[^}]*${labels},status="200"[^}]*\\} [1-9]`));
    expect(metrics).toMatch(new RegExp(`arbor_aigw_tokens_total\\{[^}]*${labels},kind="completion"[^}]*\\} [1-9]`));
    expect(metrics).toMatch(new RegExp(`arbor_aigw_cost_usd_total\\{[^}]*${labels}[^}]*\\} \\d`));
    expect(metrics).toMatch(/arbor_aigw_time_to_first_token_seconds_bucket\{[^}]*alias="mini"/);
    expect(metrics).toMatch(/arbor_aigw_errors_total\{[^}]*alias="breaks"[^}]*\} [1-9]/);
  });
});

describe('ai-gateway with always_include_stream_usage', () => {
  it('shows usage in every stream, asked or not', async () => {
    const fake = await startFake();
    const database = await createTestDatabase();
    const gateway = await startTestGateway(
      database,
      writeConfig(`model_list:${deployment('mini', 'gpt-4o-mini', fake.url)}
general_settings:
  always_include_stream_usage: true
`),
    );
    try {
      const client = sdkClient(gateway);
      const stream = await client.chat.completions.create({ model: 'mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
      const last = (await collect(stream)).at(-1);
      expect(last?.usage?.total_tokens).toBe(12);
    } finally {
      await gateway.close();
      await database.drop();
      await fake.stop();
    }
  });
});
