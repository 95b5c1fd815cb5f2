// Azure AI Foundry deployments as application developers meet them: the official OpenAI SDK (chat
// and embeddings on the model inference API, chat on Claude) and the official Anthropic SDK
// (/v1/messages on Claude, passed through) against the gateway, the gateway against the Foundry
// fake of tools/fake-providers (`/azure_ai`).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, MASTER_KEY, readChatStream, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, base: string) => `
  - model_name: ${alias}
    litellm_params:
      model: azure_ai/${model}
      api_base: ${base}
      api_key: os.environ/AIGW_TEST_FOUNDRY_KEY`;

describe('ai-gateway on Azure AI Foundry through the official OpenAI and Anthropic SDKs', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    process.env['AIGW_TEST_FOUNDRY_KEY'] = 'foundry-upstream-secret';
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) =>
        `model_list:${[
          deployment('llama', 'Llama-3.3-70B-Instruct', `${fakeUrl}/azure_ai/models`),
          deployment('gpt', 'gpt-4o', `${fakeUrl}/azure_ai/models`),
          deployment('embed', 'text-embedding-3-small', `${fakeUrl}/azure_ai/models`),
          deployment('claude', 'claude-sonnet-4-5', `${fakeUrl}/azure_ai/anthropic`),
        ].join('')}\n`,
    ));
    anthropic = new Anthropic({ apiKey: MASTER_KEY, baseURL: gateway.url, maxRetries: 0 });
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it("passes a chat to the model inference API with the key in api-key and its api-version, priced at the vendor's list price", async () => {
    const { data, response } = await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'foundry plain' }], temperature: 0.1 }).withResponse();
    expect(data.choices[0]?.message.content).toBe('fake answer from gpt-4o');
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 2.5e-6 + 5 * 10e-6, 15);
    const seen = await lastRequestWith(fake, 'foundry plain');
    expect(seen.path).toBe('/azure_ai/models/chat/completions?api-version=2024-05-01-preview');
    expect(seen.headers['api-key']).toBe('foundry-upstream-secret');
    expect(seen.headers['authorization']).toBeUndefined();
    expect(seen.json).toEqual({ model: 'gpt-4o', messages: [{ role: 'user', content: 'foundry plain' }], temperature: 0.1 });
  });

  it('streams a chat with the usage at the end, and embeds', async () => {
    const stream = await client.chat.completions.create({
      model: 'llama',
      messages: [{ role: 'user', content: 'foundry stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usage } = await readChatStream(stream);
    expect(text).toBe('fake answer from Llama-3.3-70B-Instruct ');
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5 });

    const embeddings = await client.embeddings.create({ model: 'embed', input: 'foundry embed', dimensions: 4 });
    expect(embeddings.data[0]?.embedding).toHaveLength(4);
    expect((await lastRequestWith(fake, 'foundry embed')).path).toBe('/azure_ai/models/embeddings?api-version=2024-05-01-preview');
  });

  it("serves chat on Claude through Anthropic's Messages API on Foundry, keyed in api-key", async () => {
    const completion = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'foundry claude chat' }] });
    expect(completion.choices[0]?.message.content).toBe('fake answer from claude-sonnet-4-5');
    const seen = await lastRequestWith(fake, 'foundry claude chat');
    expect(seen.path).toBe('/azure_ai/anthropic/v1/messages');
    expect(seen.headers['api-key']).toBe('foundry-upstream-secret');
    expect(seen.json).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 4096, messages: [{ role: 'user', content: [{ type: 'text', text: 'foundry claude chat' }] }] });
  });

  it('passes /v1/messages through to Claude on Foundry with cache_control as sent', async () => {
    const message = await anthropic.messages.create({
      model: 'claude',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Cached instructions.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'foundry native messages' }],
    });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'fake answer from claude-sonnet-4-5' })]);
    expect((await lastRequestWith(fake, 'foundry native messages')).json).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Cached instructions.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'foundry native messages' }],
    });
  });

  it('serves /v1/messages on a model that is not Claude through its chat completions', async () => {
    const message = await anthropic.messages.create({ model: 'llama', max_tokens: 100, messages: [{ role: 'user', content: 'foundry bridged messages' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'fake answer from Llama-3.3-70B-Instruct' })]);
  });
});
