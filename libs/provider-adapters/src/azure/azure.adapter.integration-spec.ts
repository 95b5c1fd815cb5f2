// The Azure adapter against tools/fake-providers' Azure OpenAI (a child process).
import type { ProviderDeployment } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { startFakeProviders, type FakeProvidersProcess } from '@arbor/testing';
import { azureAdapter, azureUrl } from './azure.adapter';

async function json(body: AsyncIterable<Buffer | string>): Promise<Record<string, unknown>> {
  let result = '';
  for await (const chunk of body) result += String(chunk);
  return JSON.parse(result) as Record<string, unknown>;
}

describe('the Azure OpenAI adapter', () => {
  let fake: FakeProvidersProcess;
  const deployment = (model: string, extra: Partial<ProviderDeployment> = {}): ProviderDeployment => ({
    provider: 'azure',
    model,
    apiBase: `${fake.url}/azure`,
    apiKey: 'azure-key',
    ...extra,
  });
  const call = (target: ProviderDeployment, body: Record<string, unknown>) => ({ deployment: target, body, signal: new AbortController().signal });
  const lastSeen = async (): Promise<{ path: string; headers: Record<string, string>; body: string }> =>
    ((await (await fetch(`${fake.url}/_fake/requests`)).json()) as { path: string; headers: Record<string, string>; body: string }[]).at(-1)!;

  beforeAll(async () => {
    fake = await startFakeProviders();
  });

  afterAll(() => fake.stop());

  it('builds the deployment URL with the api-version, whether or not api_base ends in /openai', () => {
    expect(azureUrl('https://res.openai.azure.com/', 'gpt 4o', 'chat/completions', '2024-10-21').href).toBe(
      'https://res.openai.azure.com/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21',
    );
    expect(azureUrl('https://res.openai.azure.com/openai', 'd', 'embeddings', 'v').href).toBe('https://res.openai.azure.com/openai/deployments/d/embeddings?api-version=v');
  });

  it('passes completions through with the key in api-key and the default api-version', async () => {
    const answer = await azureAdapter.operations.completions!.call(call(deployment('my-instruct'), { model: 'alias', prompt: 'Say hi', max_tokens: 5 }));
    expect((await json(answer.body))['choices']).toEqual([{ index: 0, text: 'fake answer from my-instruct', logprobs: null, finish_reason: 'stop' }]);
    const seen = await lastSeen();
    expect(seen.path).toBe('/azure/openai/deployments/my-instruct/completions?api-version=2024-10-21');
    expect(seen.headers['api-key']).toBe('azure-key');
    expect(JSON.parse(seen.body)).toEqual({ model: 'my-instruct', prompt: 'Say hi', max_tokens: 5 });
  });

  it('passes embeddings through untouched, base64 included', async () => {
    const answer = await azureAdapter.operations.embeddings!.call(
      call(deployment('my-embedding', { apiVersion: '2025-04-01-preview' }), { model: 'alias', input: 'x', encoding_format: 'base64', dimensions: 2 }),
    );
    const body = await json(answer.body);
    expect((body['data'] as { embedding: unknown }[])[0]?.embedding).toEqual(expect.any(String));
    expect((await lastSeen()).path).toBe('/azure/openai/deployments/my-embedding/embeddings?api-version=2025-04-01-preview');
  });

  it("gives Azure's numeric error codes their OpenAI-format names", async () => {
    const limited = await azureAdapter.operations.chat!.call(call(deployment('fail-429'), { messages: [] })).catch((e: unknown) => e);
    expect({ status: (limited as ProviderError).status, code: (limited as ProviderError).code, headers: (limited as ProviderError).headers }).toEqual({
      status: 429,
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': '1' },
    });
    const context = await azureAdapter.operations.chat!.call(call(deployment('fail-context'), { messages: [] })).catch((e: unknown) => e);
    expect((context as ProviderError).code).toBe('context_length_exceeded');
  });

  it('refuses a deployment without api_base', async () => {
    const error = await azureAdapter.operations.chat!.call(call({ provider: 'azure', model: 'd' }, { messages: [] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain('api_base');
  });
});
