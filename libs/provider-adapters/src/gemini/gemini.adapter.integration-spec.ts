// The Gemini adapter against tools/fake-providers' Gemini (a child process speaking Google's wire format).
import type { ProviderDeployment } from '../lib/provider-adapter';
import { ProviderError } from '../lib/provider-error';
import { startFakeProviders, type FakeProvidersProcess } from '@arbor/testing';
import { geminiAdapter } from './gemini.adapter';

async function text(body: AsyncIterable<Buffer | string>): Promise<string> {
  let result = '';
  for await (const chunk of body) result += String(chunk);
  return result;
}

describe('the Gemini adapter against the Gemini fake', () => {
  let fake: FakeProvidersProcess;
  const deployment = (model: string): ProviderDeployment => ({ provider: 'gemini', model, apiBase: `${fake.url}/gemini`, apiKey: 'gemini-key' });
  const call = (model: string, body: Record<string, unknown>) => ({ deployment: deployment(model), body, signal: new AbortController().signal });
  const lastSeen = async (): Promise<{ path: string; headers: Record<string, string>; body: string }> =>
    ((await (await fetch(`${fake.url}/_fake/requests`)).json()) as { path: string; headers: Record<string, string>; body: string }[]).at(-1)!;

  beforeAll(async () => {
    fake = await startFakeProviders();
  });

  afterAll(() => fake.stop());

  it('embeds texts through batchEmbedContents as an OpenAI-format list with estimated usage', async () => {
    const answer = await geminiAdapter.operations.embeddings!.call(
      call('gemini-embedding-001', { model: 'embed', input: ['hello world', 'hi'], dimensions: 3, encoding_format: 'float' }),
    );
    expect(JSON.parse(await text(answer.body))).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [1 / 7, 2 / 7, 3 / 7] },
        { object: 'embedding', index: 1, embedding: [2 / 7, 4 / 7, 6 / 7] },
      ],
      model: 'gemini-embedding-001',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    const seen = await lastSeen();
    expect(seen.path).toBe('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(seen.headers['x-goog-api-key']).toBe('gemini-key');
    expect(JSON.parse(seen.body)).toEqual({
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hello world' }] }, outputDimensionality: 3 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hi' }] }, outputDimensionality: 3 },
      ],
    });
  });

  it('encodes vectors as base64 float32 when asked (the OpenAI SDK asks by default)', async () => {
    const answer = await geminiAdapter.operations.embeddings!.call(call('gemini-embedding-001', { input: 'x', dimensions: 2, encoding_format: 'base64' }));
    const embedding = (JSON.parse(await text(answer.body)) as { data: { embedding: string }[] }).data[0]!.embedding;
    const bytes = Buffer.from(embedding, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([Math.fround(1 / 7), Math.fround(2 / 7)]);
  });

  it('refuses token arrays as embedding input', async () => {
    const error = await geminiAdapter.operations.embeddings!.call(call('gemini-embedding-001', { input: [[1, 2, 3]] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).param).toBe('input');
  });

  it('streams a translated chat ending with usage, and says it has no completions', async () => {
    const answer = await geminiAdapter.operations.chat!.call(
      call('tokens-4-2', { messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
    );
    expect(answer.contentType).toBe('text/event-stream');
    const frames = (await text(answer.body)).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(frames.at(-2)!.slice('data: '.length))).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } });
    expect((await lastSeen()).path).toBe('/gemini/v1beta/models/tokens-4-2:streamGenerateContent?alt=sse');
    expect(geminiAdapter.operations.completions).toBeUndefined();
  });

  it.each([
    ['fail-midstream', 503],
    ['fail-drop', 502],
  ])('ends the stream of %s with a ProviderError %i after the first chunk', async (model, status) => {
    const answer = await geminiAdapter.operations.chat!.call(call(model, { messages: [{ role: 'user', content: 'x' }], stream: true }));
    const frames: string[] = [];
    const error = await (async () => {
      for await (const chunk of answer.body) frames.push(String(chunk));
    })().catch((e: unknown) => e);
    expect(frames.join('')).toContain('"content":"fake "');
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(status);
  });

  it('rejects with the mapped ProviderError, Retry-After from RetryInfo', async () => {
    const error = await geminiAdapter.operations.chat!.call(call('fail-429', { messages: [{ role: 'user', content: 'x' }] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect({ status: (error as ProviderError).status, code: (error as ProviderError).code, headers: (error as ProviderError).headers }).toEqual({
      status: 429,
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': '2' },
    });
  });
});
