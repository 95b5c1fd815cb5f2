// OpenAI's Responses API as its clients meet it: the official OpenAI SDK's `responses.create` and
// `responses.stream` against the gateway, the gateway against tools/fake-providers. This step
// serves it natively on OpenAI(-compatible) aliases; other providers answer 400 until the bridge.
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import request from 'supertest';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, MASTER_KEY, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, base: string, extra = '') => `
  - model_name: ${alias}
    litellm_params: { model: ${model}, api_base: ${base}, api_key: sk-upstream }${extra}`;

const refusal = (call: Promise<unknown>): Promise<unknown> => call.then(() => new Error('the call succeeded'), (error: unknown) => error);

describe('the Responses API through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;
  const asMaster = { authorization: `Bearer ${MASTER_KEY}` };

  beforeAll(async () => {
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) => `model_list:${[
        deployment('gpt', 'openai/gpt-4o-mini', `${fakeUrl}/v1`, '\n    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }'),
        deployment('gpt-midstream', 'openai/fail-midstream', `${fakeUrl}/v1`),
        deployment('claude', 'anthropic/claude-sonnet-4-5', `${fakeUrl}/anthropic`),
      ].join('')}
`,
    ));
  }, 60_000);

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it('answers a plain call on an OpenAI alias with the provider model, priced from its usage', async () => {
    const { data, response } = await client.responses.create({ model: 'gpt', instructions: 'Be brief.', input: 'responses plain', metadata: { team: 'search' } }).withResponse();
    expect(data.output_text).toBe('fake answer from gpt-4o-mini');
    expect(data.usage).toMatchObject({ input_tokens: 7, output_tokens: 5 });
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 0.001 + 5 * 0.002, 10);
    expect(response.headers.get('x-arbor-model-group')).toBe('gpt');
    const seen = await lastRequestWith(fake, 'responses plain');
    expect(seen.path).toBe('/v1/responses');
    expect(seen.json).toMatchObject({ model: 'gpt-4o-mini', instructions: 'Be brief.', input: 'responses plain', metadata: { team: 'search' } });
  });

  it('streams every event of the response on, and the stream helper assembles what the plain call answers', async () => {
    const stream = client.responses.stream({ model: 'gpt', input: 'responses streamed' });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('fake answer from gpt-4o-mini');
    expect(types[0]).toBe('response.created');
    expect(types).toEqual(expect.arrayContaining(['response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.output_item.done']));
    expect(types.at(-1)).toBe('response.completed');
  });

  it("records a key's spend for plain and streamed calls, from the usage of the response and of the stream's last event", async () => {
    const created = (await request(gateway.url).post('/api/v1/keys').set(asMaster).send({ project: 'responses-spend' }).expect(201)).body as { id: string; key: string };
    const own = new OpenAI({ apiKey: created.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await own.responses.create({ model: 'gpt', input: 'spend plain' });
    await own.responses.stream({ model: 'gpt', input: 'spend streamed' }).finalResponse();
    let report: { totals: Record<string, number> } | undefined;
    for (let tries = 0; tries < 100 && (report?.totals['requests'] ?? 0) < 2; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      report = (await request(gateway.url).get(`/api/v1/keys/${created.id}/spend`).set(asMaster).expect(200)).body as typeof report;
    }
    expect(report?.totals).toMatchObject({ requests: 2, estimated_requests: 0, prompt_tokens: 14, completion_tokens: 10 });
    expect(report?.totals['cost_usd']).toBeCloseTo(2 * (7 * 0.001 + 5 * 0.002), 10);
  });

  it('ends a stream the upstream failed mid-way with its error event, which the SDK raises', async () => {
    const stream = client.responses.stream({ model: 'gpt-midstream', input: 'broken' });
    await expect(stream.finalResponse()).rejects.toThrow(/fake: the server had an error/);
  });

  it('answers in OpenAI’s error classes: a bad key, an unknown alias, and an alias whose provider offers no Responses API yet', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-arbor-not-a-key', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    expect(await refusal(stranger.responses.create({ model: 'gpt', input: 'x' }))).toBeInstanceOf(AuthenticationError);
    expect(await refusal(client.responses.create({ model: 'nope', input: 'x' }))).toBeInstanceOf(NotFoundError);
    const notServed = await refusal(client.responses.create({ model: 'claude', input: 'x' }));
    expect(notServed).toBeInstanceOf(BadRequestError);
    expect((notServed as BadRequestError).message).toMatch(/served by anthropic, which offers no Responses API/);
  });
});
