// The Azure OpenAI fake against the openai SDK's AzureOpenAI client: deployment URLs, api-key,
// api-version and Azure's error bodies as the SDK meets them at <resource>.openai.azure.com.
import { AuthenticationError, AzureOpenAI, NotFoundError, RateLimitError } from 'openai';
import { startFakeProviders, type FakeProviders } from './fake-providers.ts';

describe('the Azure OpenAI fake through the openai SDK AzureOpenAI client', () => {
  let fake: FakeProviders;
  let client: AzureOpenAI;

  const lastSeen = async (): Promise<{ path: string; headers: Record<string, string>; body: string }> => {
    const seen = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as { path: string; headers: Record<string, string>; body: string }[];
    return seen.at(-1)!;
  };

  beforeAll(async () => {
    fake = await startFakeProviders();
    client = new AzureOpenAI({ endpoint: `${fake.url}/azure`, apiKey: 'azure-fake-key', apiVersion: '2024-10-21', maxRetries: 0 });
  });

  afterAll(() => fake.close());

  it('answers a chat completion from the deployment in the URL, with the key in api-key', async () => {
    const completion = await client.chat.completions.create({ model: 'my-gpt-4o', messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.choices[0]?.message.content).toBe('fake answer from my-gpt-4o');
    const seen = await lastSeen();
    expect(seen.path).toBe('/azure/openai/deployments/my-gpt-4o/chat/completions?api-version=2024-10-21');
    expect(seen.headers['api-key']).toBe('azure-fake-key');
  });

  it('streams chat chunks with usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'tokens-9-3',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let total: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      total = chunk.usage?.total_tokens ?? total;
    }
    expect(text).toBe('fake answer from tokens-9-3 ');
    expect(total).toBe(12);
  });

  it('serves completions and embeddings (base64, the SDK default, decoded by the SDK)', async () => {
    const completion = await client.completions.create({ model: 'my-instruct', prompt: 'Say hi' });
    expect(completion.choices[0]?.text).toBe('fake answer from my-instruct');
    const embeddings = await client.embeddings.create({ model: 'my-embedding', input: ['a', 'b'], dimensions: 4 });
    expect(embeddings.data.map((item) => item.embedding.length)).toEqual([4, 4]);
    expect((await lastSeen()).path).toBe('/azure/openai/deployments/my-embedding/embeddings?api-version=2024-10-21');
  });

  it('answers Azure error bodies the SDK raises as its matching classes', async () => {
    const limited = await client.chat.completions.create({ model: 'fail-429', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).code).toBe('429');
    expect((limited as RateLimitError).headers.get('retry-after')).toBe('1');
    const missing = await client.chat.completions.create({ model: 'fail-404', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).code).toBe('DeploymentNotFound');
  });

  it("refuses a call without api-key with Azure's 401, and one without api-version with 404", async () => {
    const url = `${fake.url}/azure/openai/deployments/my-gpt-4o/chat/completions`;
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'x' }] });
    const noKey = await fetch(`${url}?api-version=2024-10-21`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: '401', message: expect.stringContaining('Access denied') });
    const noVersion = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'api-key': 'k' }, body });
    expect(noVersion.status).toBe(404);
    const wrongKeyClient = new AzureOpenAI({ endpoint: `${fake.url}/azure`, apiKey: 'k', apiVersion: '2024-10-21', maxRetries: 0 });
    const denied = await wrongKeyClient.chat.completions.create({ model: 'fail-401', messages: [] }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(AuthenticationError);
  });
});
