// The Gemini fake against the official @google/genai SDK: if the SDK reads its answers, streams,
// embeddings and errors as it reads generativelanguage.googleapis.com's, the fake speaks the real
// wire format.
import { ApiError, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import { startFakeProviders, type FakeProviders } from './fake-providers.ts';

describe('the Gemini fake through the official @google/genai SDK', () => {
  let fake: FakeProviders;
  let ai: GoogleGenAI;

  const lastSeen = async (): Promise<{ path: string; headers: Record<string, string>; body: string }> => {
    const seen = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as { path: string; headers: Record<string, string>; body: string }[];
    return seen.at(-1)!;
  };

  beforeAll(async () => {
    fake = await startFakeProviders();
    // Jest's sandbox hides Node's undici dispatcher from the SDK's default transport; a fetch of its own works.
    ai = new GoogleGenAI({ apiKey: 'gemini-fake-key', httpOptions: { baseUrl: `${fake.url}/gemini`, apiVersion: 'v1beta', fetch: (input, init) => fetch(input, init) } });
  });

  afterAll(() => fake.close());

  it('answers generateContent with text, finishReason and usage, having received the key in x-goog-api-key', async () => {
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'hello',
      config: { systemInstruction: 'Be brief.', temperature: 0.3 },
    });
    expect(response.text).toBe('fake answer from gemini-2.5-flash');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 7, candidatesTokenCount: 5, totalTokenCount: 12 });
    const seen = await lastSeen();
    expect(seen.path).toBe('/gemini/v1beta/models/gemini-2.5-flash:generateContent');
    expect(seen.headers['x-goog-api-key']).toBe('gemini-fake-key');
    expect(JSON.parse(seen.body)).toMatchObject({ systemInstruction: { parts: [{ text: 'Be brief.' }] }, generationConfig: { temperature: 0.3 } });
  });

  it('streams server-sent events the SDK reads chunk by chunk, usage and finishReason on the last', async () => {
    const stream = await ai.models.generateContentStream({ model: 'tokens-20-4-3-2', contents: 'hello' });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe('fake answer from tokens-20-4-3-2');
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({ promptTokenCount: 20, candidatesTokenCount: 4, thoughtsTokenCount: 3, cachedContentTokenCount: 2 });
    expect((await lastSeen()).path).toBe('/gemini/v1beta/models/tokens-20-4-3-2:streamGenerateContent?alt=sse');
  });

  it('goes on with a hold-<name> stream after its first chunk once released', async () => {
    const stream = await ai.models.generateContentStream({ model: 'hold-gemini-spec', contents: 'hello' });
    const chunks = stream[Symbol.asyncIterator]();
    expect((await chunks.next()).value?.text).toBe('fake ');
    await fetch(`${fake.url}/_fake/release/gemini-spec`, { method: 'POST' });
    let rest = '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) rest += next.value.text ?? '';
    expect(rest).toBe('answer from hold-gemini-spec');
  });

  it('calls the declared function when given tools, and answers in text after its response', async () => {
    const tools = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }];
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'weather in Paris?',
      config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } } },
    });
    expect(response.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'fake' } }]);
    const answer = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 21 } } }] },
      ],
      config: { tools },
    });
    expect(answer.text).toBe('fake answer from gemini-2.5-flash');
  });

  it('embeds a batch of texts with the requested dimensionality', async () => {
    const response = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['one', 'two'], config: { outputDimensionality: 4 } });
    expect(response.embeddings?.map((embedding) => embedding.values?.length)).toEqual([4, 4]);
    expect((await lastSeen()).path).toBe('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it.each([
    ['fail-429', 429, 'RESOURCE_EXHAUSTED'],
    ['fail-401', 400, 'API_KEY_INVALID'],
    ['fail-503', 503, 'UNAVAILABLE'],
    ['fail-context', 400, 'exceeds the maximum number of tokens'],
  ])("answers model %s with Google's error body, which the SDK raises as ApiError %i", async (model, status, text) => {
    const error = await ai.models.generateContent({ model, contents: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(status);
    expect((error as ApiError).message).toContain(text);
  });

  it('ends a stream with an error event that the SDK raises mid-stream', async () => {
    const stream = await ai.models.generateContentStream({ model: 'fail-midstream', contents: 'x' });
    const texts: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) texts.push(chunk.text ?? '');
    })().catch((e: unknown) => e);
    expect(texts).toEqual(['fake ']);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
  });
});
