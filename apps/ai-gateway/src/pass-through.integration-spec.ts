// The vendor pass-throughs /openai/* and /anthropic/*: the official SDKs pointed at them reach
// endpoints the gateway serves nowhere else (OpenAI conversations, Anthropic models, files and
// message batches) with the gateway's virtual key, the provider key swapped in, bodies and
// streams untouched, and chat and messages calls priced and recorded as the key's spend.
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { asMaster, GatewayOnFakes, rejectionOf, requestAsSent, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const OPENAI_KEY = 'sk-provider-openai-secret';
const ANTHROPIC_KEY = 'sk-ant-provider-secret';

describe('provider pass-throughs', () => {
  let running: GatewayOnFakes;

  beforeAll(async () => {
    running = await startGatewayOnFakes(
      (fake) => `
model_list:
  - model_name: gpt
    litellm_params:
      model: openai/gpt-4o-mini
      api_base: ${fake}/openai/v1
      api_key: ${OPENAI_KEY}
  - model_name: gpt-other
    litellm_params:
      model: openai/gpt-4o
      api_base: ${fake}/openai/v1
      api_key: sk-second-deployment
  - model_name: claude
    litellm_params:
      model: anthropic/claude-sonnet-4-5
      api_base: ${fake}/anthropic
      api_key: ${ANTHROPIC_KEY}
`,
    );
  });

  afterAll(() => stopGatewayOnFakes(running));

  const newKey = async (settings: Record<string, unknown> = {}): Promise<{ id: string; key: string }> => {
    const created = await fetch(`${running.gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project: 'pass-through', ...settings }) });
    return (await created.json()) as { id: string; key: string };
  };

  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${running.gateway.url}/openai/v1`, maxRetries: 0 });
  const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: `${running.gateway.url}/anthropic`, maxRetries: 0 });

  const lastSeen = async (path: string) => (await running.fake.requests()).filter((request) => request.path.split('?')[0] === path).at(-1);

  const spendOf = async (keyId: string, requests: number): Promise<{ spend: number; totals: Record<string, number> }> => {
    const deadline = Date.now() + 5000;
    let report: { spend: number; totals: Record<string, number> } | undefined;
    while (Date.now() < deadline) {
      report = (await (await fetch(`${running.gateway.url}/api/v1/keys/${keyId}/spend`, { headers: asMaster })).json()) as typeof report;
      if (report && report.totals['requests'] >= requests) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return report as { spend: number; totals: Record<string, number> };
  };

  it('reaches OpenAI conversations, which the gateway does not otherwise serve, with the provider key of the first OpenAI deployment', async () => {
    const key = await newKey();
    const client = openai(key.key);
    const conversation = await client.conversations.create({ metadata: { topic: 'pass-through' }, items: [{ type: 'message', role: 'user', content: 'Hello' }] });
    expect(conversation.object).toBe('conversation');
    expect(conversation.metadata).toEqual({ topic: 'pass-through' });
    const retrieved = await client.conversations.retrieve(conversation.id);
    expect(retrieved.id).toBe(conversation.id);
    const items = await client.conversations.items.list(conversation.id);
    expect(items.data).toHaveLength(1);
    const deleted = await client.conversations.delete(conversation.id);
    expect(deleted.deleted).toBe(true);

    const seen = await lastSeen(`/openai/v1/conversations/${conversation.id}`);
    expect(seen?.method).toBe('DELETE');
    expect(seen?.headers['authorization']).toBe(`Bearer ${OPENAI_KEY}`);
    // The vendor's own 404 comes back as it was sent.
    const gone = (await rejectionOf(client.conversations.retrieve(conversation.id))) as InstanceType<typeof OpenAI.NotFoundError>;
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gone.message).toContain('not found');
  });

  it('passes a chat completion through untouched and records its spend at the model the vendor names', async () => {
    const key = await newKey();
    const client = openai(key.key);
    const completion = await client.chat.completions.create({ model: 'tokens-1000-2000', messages: [{ role: 'user', content: 'pass me through' }], temperature: 0.2 });
    // The fake echoes what arrived: the body exactly as the client sent it (no alias swapped, nothing added).
    const echo = (completion as unknown as { fake_echo: { body: Record<string, unknown>; authorization: string } }).fake_echo;
    expect(echo.body).toEqual({ model: 'tokens-1000-2000', messages: [{ role: 'user', content: 'pass me through' }], temperature: 0.2 });
    expect(echo.authorization).toBe(`Bearer ${OPENAI_KEY}`);

    const streamed = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream me' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of streamed) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text.trim()).toBe('fake answer from gpt-4o-mini');
    expect(usage?.prompt_tokens).toBe(7);

    // tokens-1000-2000 has no price; gpt-4o-mini's (the gateway's deployment of it) is 0.15/0.6 per million.
    const report = await spendOf(key.id, 2);
    expect(report.totals['requests']).toBe(2);
    expect(report.totals['prompt_tokens']).toBe(1000 + 7);
    expect(report.spend).toBeCloseTo(7 * 0.15e-6 + 5 * 0.6e-6, 12);
  });

  it('reaches Anthropic models, files and message batches with x-api-key, and records the spend of a messages call', async () => {
    const key = await newKey();
    const client = anthropic(key.key);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toContain('claude-sonnet-4-5-20250929');

    const uploaded = await client.files.upload({ file: await toFile(Buffer.from('report contents'), 'report.txt', { type: 'text/plain' }) });
    expect(uploaded.filename).toBe('report.txt');
    const listed = await client.files.list();
    expect(listed.data.map((file) => file.id)).toContain(uploaded.id);

    const batch = await client.messages.batches.create({
      requests: [{ custom_id: 'first', params: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'In a batch' }] } }],
    });
    expect(batch.request_counts.succeeded).toBe(1);
    expect((await client.messages.batches.retrieve(batch.id)).processing_status).toBe('ended');

    const seen = await lastSeen(`/anthropic/v1/messages/batches/${batch.id}`);
    expect(seen?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(seen?.headers['authorization']).toBeUndefined();

    const message = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello Claude' }] });
    expect(message.usage.input_tokens).toBe(7);
    // Claude Sonnet 4.5: 3 and 15 USD per million tokens. Only the messages call is a model call.
    const report = await spendOf(key.id, 6);
    expect(report.totals['prompt_tokens']).toBe(7);
    expect(report.spend).toBeCloseTo(7 * 3e-6 + 5 * 15e-6, 12);
  });

  it('records the cost of a message batch at half price when its results are first read', async () => {
    const key = await newKey();
    const client = anthropic(key.key);
    const batch = await client.messages.batches.create({
      requests: [
        { custom_id: 'a', params: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'First' }] } },
        { custom_id: 'b', params: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Second' }] } },
      ],
    });
    // results_url names the vendor's address: the results are read through the pass-through's own path.
    const read = async () => {
      const response = await fetch(`${running.gateway.url}/anthropic/v1/messages/batches/${batch.id}/results`, {
        headers: { 'x-api-key': key.key, 'anthropic-version': '2023-06-01' },
      });
      expect(response.status).toBe(200);
      return (await response.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { custom_id: string; result: { message: { usage: { input_tokens: number; output_tokens: number } } } });
    };
    const lines = await read();
    expect(lines.map((line) => line.custom_id)).toEqual(['a', 'b']);
    const usages = lines.map((line) => line.result.message.usage);
    const expected = usages.reduce((sum, usage) => sum + (usage.input_tokens * 3e-6 + usage.output_tokens * 15e-6) * 0.5, 0);
    // create and results: two calls; the results carry the batch's usage.
    const report = await spendOf(key.id, 2);
    expect(report.totals['prompt_tokens']).toBe(usages[0].input_tokens + usages[1].input_tokens);
    expect(report.spend).toBeCloseTo(expected, 12);

    // Read again, the batch is not charged again.
    await read();
    const again = await spendOf(key.id, 3);
    expect(again.totals['requests']).toBe(3);
    expect(again.spend).toBeCloseTo(expected, 12);
  });

  it('streams a messages call through event by event with its usage recorded', async () => {
    const key = await newKey();
    const stream = anthropic(key.key).messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Stream, Claude' }] });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text' });
    const report = await spendOf(key.id, 1);
    expect(report.totals['completion_tokens']).toBe(final.usage.output_tokens);
    expect(report.spend).toBeGreaterThan(0);
  });

  it.each([
    '/openai/../_fake/requests',
    '/openai/%2e%2e/_fake/requests',
    '/openai/.%2e/_fake/requests',
    '/openai/v1/%2E%2E/%2E%2E/_fake/requests',
    '/openai/%252e%252e/_fake/requests',
    '/openai/..%5c_fake/requests',
    '/openai/..\\_fake/requests',
    '/openai//_fake/requests',
    '/anthropic/%2e%2e/_fake/requests',
    '/anthropic/v1/..%2f..%2f_fake/requests',
  ])("refuses %s, which would leave the provider's base path with its key, with 400 before anything is sent", async (path) => {
    const key = await newKey();
    const before = (await running.fake.requests()).length;
    const answer = await requestAsSent(running.gateway.url, path, { authorization: `Bearer ${key.key}` });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_pass_through_path', param: 'path' } });
    expect(answer.body).not.toContain(OPENAI_KEY);
    expect((await running.fake.requests()).length).toBe(before);
  });

  it("sends the provider none of the caller's credentials or cookies, only its own key", async () => {
    const key = await newKey();
    const caller = { authorization: `Bearer ${key.key}`, 'x-api-key': key.key, 'api-key': key.key, cookie: 'session=caller', 'openai-beta': 'assistants=v2' };
    expect((await fetch(`${running.gateway.url}/openai/v1/conversations`, { method: 'POST', headers: { ...caller, 'content-type': 'application/json' }, body: '{}' })).status).toBe(
      200,
    );
    const toOpenAi = (await lastSeen('/openai/v1/conversations'))?.headers ?? {};
    expect(toOpenAi).toMatchObject({ authorization: `Bearer ${OPENAI_KEY}`, 'openai-beta': 'assistants=v2' });
    for (const name of ['x-api-key', 'api-key', 'cookie']) expect(toOpenAi).not.toHaveProperty(name);

    expect((await fetch(`${running.gateway.url}/anthropic/v1/models`, { headers: { ...caller, 'anthropic-version': '2023-06-01' } })).status).toBe(200);
    const toAnthropic = (await lastSeen('/anthropic/v1/models'))?.headers ?? {};
    expect(toAnthropic).toMatchObject({ 'x-api-key': ANTHROPIC_KEY, 'anthropic-version': '2023-06-01' });
    for (const name of ['authorization', 'api-key', 'cookie']) expect(toAnthropic).not.toHaveProperty(name);
    expect(JSON.stringify([toOpenAi, toAnthropic])).not.toContain(key.key);
  });

  it('refuses a bad key with 401 before anything reaches the vendor, in the envelope of the vendor SDK', async () => {
    const before = (await running.fake.requests()).length;
    expect(await rejectionOf(openai('sk-wrong').conversations.create({}))).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(await rejectionOf(anthropic('sk-wrong').models.list())).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((await running.fake.requests()).length).toBe(before);
  });

  it('refuses a key restricted to other aliases than the deployment whose provider key it would use', async () => {
    const key = await newKey({ aliases: ['gpt-other'] });
    expect(await rejectionOf(openai(key.key).conversations.create({}))).toBeInstanceOf(OpenAI.PermissionDeniedError);
  });
});
