// Retries, fallbacks, cooldowns and drop_params as application developers meet them: the official
// OpenAI SDK (maxRetries: 0, so only the gateway retries) against the gateway and tools/fake-providers.
import OpenAI, { BadRequestError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { GatewayClock } from '@arbor/ai-gateway';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { sdkClient, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, fakeUrl: string, id: string, rpm?: number) => `
  - model_name: ${alias}
    litellm_params:
      model: openai/${model}
      api_base: ${fakeUrl}/v1
      api_key: sk-upstream${rpm !== undefined ? `\n      rpm: ${rpm}` : ''}
    model_info: { id: ${id} }`;

/** A call the SDK's types do not know (top_k, drop_params…): the gateway must see it as sent. */
const loose = (body: Record<string, unknown>) => body as unknown as ChatCompletionCreateParamsNonStreaming;

interface Seen {
  body: string;
}

describe('ai-gateway retries, fallbacks, cooldowns and drop_params through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;
  let now = Date.UTC(2026, 0, 1);

  /** The upstream requests whose body carries `marker` (a unique message content per test). */
  const seenWith = async (marker: string): Promise<Record<string, unknown>[]> => {
    const seen = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as Seen[];
    return seen.filter((r) => r.body.includes(marker)).map((r) => JSON.parse(r.body) as Record<string, unknown>);
  };
  const ask = (model: string, marker: string, extra: Record<string, unknown> = {}) =>
    client.chat.completions.create(loose({ model, messages: [{ role: 'user', content: marker }], ...extra })).withResponse();
  const routing = (headers: Headers) => ({
    group: headers.get('x-arbor-model-group'),
    id: headers.get('x-arbor-model-id'),
    retries: headers.get('x-arbor-attempted-retries'),
    fallbacks: headers.get('x-arbor-attempted-fallbacks'),
  });

  beforeAll(async () => {
    fake = await startFake();
    database = await createTestDatabase();
    // rpm weights make the first pick all but certain: the failing deployment of a pair goes first.
    const config = writeConfig(`model_list:${[
      deployment('retrying', 'fail-500', fake.url, 'retry-bad', 1_000_000),
      deployment('retrying', 'gpt-4o', fake.url, 'retry-good', 1),
      deployment('primary-down', 'fail-503', fake.url, 'primary-only'),
      deployment('backup', 'gpt-4o-mini', fake.url, 'backup-1'),
      deployment('rejecting', 'fail-400', fake.url, 'rejecting-1'),
      deployment('small-context', 'fail-context', fake.url, 'small-context-1'),
      deployment('big-context', 'gpt-4o', fake.url, 'big-context-1'),
      deployment('cooling', 'fail-503', fake.url, 'cool-bad', 1_000_000),
      deployment('cooling', 'fake-small', fake.url, 'cool-good', 1),
      deployment('plain', 'gpt-4o-mini', fake.url, 'plain-1'),
    ].join('')}
  - model_name: translated
    litellm_params: { model: anthropic/claude-test, api_base: ${fake.url}/anthropic, api_key: sk-ant-upstream }
router_settings:
  num_retries: 2
  allowed_fails: 1
  cooldown_time: 30
  fallbacks: [{ primary-down: [backup] }, { rejecting: [backup] }]
  context_window_fallbacks: [{ small-context: [big-context] }]
`);
    gateway = await startTestGateway(database, config);
    // The gateway's time is the test's: cooldowns end when the test says so, nobody sleeps.
    jest.spyOn(gateway.app.get(GatewayClock), 'now').mockImplementation(() => now);
    client = sdkClient(gateway);
  });

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
  });

  it("retries a 500 on the alias's other deployment and says so in the headers", async () => {
    const { data, response } = await ask('retrying', 'retry-me');
    expect(data.choices[0]?.message.content).toBe('fake answer from gpt-4o');
    expect(routing(response.headers)).toEqual({ group: 'retrying', id: 'retry-good', retries: '1', fallbacks: '0' });
    expect((await seenWith('retry-me')).map((b) => b['model'])).toEqual(['fail-500', 'gpt-4o']);
  });

  it('falls back to the next alias once the retries are spent', async () => {
    const { data, response } = await ask('primary-down', 'fall-back-me');
    expect(data.choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
    expect(routing(response.headers)).toEqual({ group: 'backup', id: 'backup-1', retries: '2', fallbacks: '1' });
    // num_retries 2: three attempts on the failing alias, then one on the fallback.
    expect((await seenWith('fall-back-me')).map((b) => b['model'])).toEqual(['fail-503', 'fail-503', 'fail-503', 'gpt-4o-mini']);
  });

  it('retries and falls back a stream before its first byte', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'primary-down', messages: [{ role: 'user', content: 'stream-fall-back' }], stream: true })
      .withResponse();
    expect(routing(response.headers)).toEqual({ group: 'backup', id: 'backup-1', retries: '2', fallbacks: '1' });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('fake answer from gpt-4o-mini ');
  });

  it('neither retries nor falls back on a 400', async () => {
    const error = await ask('rejecting', 'reject-me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toContain('fake: invalid request');
    expect(routing((error as BadRequestError).headers)).toEqual({ group: 'rejecting', id: 'rejecting-1', retries: '0', fallbacks: '0' });
    expect(await seenWith('reject-me')).toHaveLength(1);
  });

  it('moves a context-length error to the context_window_fallbacks, without retrying it', async () => {
    const { data, response } = await ask('small-context', 'too-long');
    expect(data.choices[0]?.message.content).toBe('fake answer from gpt-4o');
    expect(routing(response.headers)).toEqual({ group: 'big-context', id: 'big-context-1', retries: '0', fallbacks: '1' });
    expect((await seenWith('too-long')).map((b) => b['model'])).toEqual(['fail-context', 'gpt-4o']);
  });

  it('skips a deployment cooling down after allowed_fails, and uses it again once cooldown_time is over', async () => {
    // First call: the failing deployment fails once (allowed_fails 1) and the other serves.
    expect(routing((await ask('cooling', 'cool-1')).response.headers)).toMatchObject({ id: 'cool-good', retries: '1' });
    expect((await seenWith('cool-1')).map((b) => b['model'])).toEqual(['fail-503', 'fake-small']);
    // While it cools down (30 s), it is not even tried.
    for (const marker of ['cool-2', 'cool-3']) {
      expect(routing((await ask('cooling', marker)).response.headers)).toMatchObject({ id: 'cool-good', retries: '0' });
      expect((await seenWith(marker)).map((b) => b['model'])).toEqual(['fake-small']);
    }
    now += 29_000;
    expect(routing((await ask('cooling', 'cool-4')).response.headers)).toMatchObject({ id: 'cool-good', retries: '0' });
    expect((await seenWith('cool-4')).map((b) => b['model'])).toEqual(['fake-small']);
    // Cooldown over: it is picked again (and, still failing, retried on the other).
    now += 2_000;
    expect(routing((await ask('cooling', 'cool-5')).response.headers)).toMatchObject({ id: 'cool-good', retries: '1' });
    expect((await seenWith('cool-5')).map((b) => b['model'])).toEqual(['fail-503', 'fake-small']);
  });

  it('refuses a parameter a translated provider does not support with 400 naming it when drop_params is off', async () => {
    const error = await ask('translated', 'no-drop', { logit_bias: { '50256': -100 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).param).toBe('logit_bias');
    expect((error as BadRequestError).type).toBe('invalid_request_error');
    expect((error as BadRequestError).message).toContain('logit_bias');
    expect(await seenWith('no-drop')).toHaveLength(0);
  });

  it('drops it when the request says drop_params: true, and never sends the gateway fields upstream', async () => {
    const { data } = await ask('translated', 'drop-per-request', { logit_bias: { '50256': -100 }, temperature: 0.3, drop_params: true });
    expect(data.choices[0]?.message.content).toBe('fake answer from claude-test');
    const [upstream] = await seenWith('drop-per-request');
    expect(upstream).toEqual({
      model: 'claude-test',
      max_tokens: expect.any(Number),
      messages: [{ role: 'user', content: [{ type: 'text', text: 'drop-per-request' }] }],
      temperature: 0.3,
    });
  });

  it('sends such a parameter on to a pass-through provider (OpenAI), which judges it', async () => {
    await ask('plain', 'forwarded', { top_k: 5 });
    const [upstream] = await seenWith('forwarded');
    expect(upstream).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'forwarded' }], top_k: 5 });
  });

  it('removes the parameters named in additional_drop_params', async () => {
    await ask('plain', 'drop-named', { temperature: 0.3, seed: 7, additional_drop_params: ['temperature'] });
    const [upstream] = await seenWith('drop-named');
    expect(upstream).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'drop-named' }], seed: 7 });
  });
});
