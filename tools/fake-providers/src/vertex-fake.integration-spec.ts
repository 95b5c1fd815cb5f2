// The Vertex AI fake against Google's own Gen AI SDK in Vertex mode (@google/genai with
// `vertexai: true`) and its service account key signing its own tokens (google-auth-library): if
// Google's SDK reads the fake as it reads Vertex AI, the gateway's Vertex adapter is tested against
// Vertex's real wire format.
import { ApiError, GoogleGenAI } from '@google/genai';
import { JWT } from 'google-auth-library';
import { startFakeProviders, type FakeProviders } from './fake-providers.ts';

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

describe("the Vertex AI fake through Google's Gen AI SDK in Vertex mode", () => {
  let fake: FakeProviders;
  let key: { client_email: string; private_key: string; project_id: string };
  const vertex = (credentials: { client_email: string; private_key: string }, project = key.project_id) => {
    // A service account key signs its own JWT for Google's APIs, as Google's Vertex clients do.
    const authClient = new JWT({ email: credentials.client_email, key: credentials.private_key, scopes: [CLOUD_PLATFORM] });
    authClient.useJWTAccessWithScope = true;
    // Jest's sandbox hides Node's undici dispatcher from the SDK's default transport; a fetch of its own works.
    return new GoogleGenAI({
      vertexai: true,
      project,
      location: 'us-central1',
      googleAuthOptions: { authClient },
      httpOptions: { baseUrl: `${fake.url}/vertex`, fetch: (input, init) => fetch(input, init) },
    });
  };

  beforeAll(async () => {
    fake = await startFakeProviders();
    key = (await (await fetch(`${fake.url}/vertex/_fake/service-account`)).json()) as typeof key;
  });

  afterAll(() => fake.close());

  it('answers generateContent and streams streamGenerateContent for a token its service account signed', async () => {
    const answer = await vertex(key).models.generateContent({ model: 'gemini-2.5-flash', contents: 'hello' });
    expect(answer.text).toBe('fake answer from gemini-2.5-flash');
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 7, candidatesTokenCount: 5 });

    let text = '';
    for await (const chunk of await vertex(key).models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hello' })) text += chunk.text ?? '';
    expect(text).toBe('fake answer from gemini-2.5-flash');
  });

  it('embeds through predict', async () => {
    const answer = await vertex(key).models.embedContent({ model: 'text-embedding-005', contents: ['one two', 'three'], config: { outputDimensionality: 4 } });
    expect(answer.embeddings?.map((embedding) => embedding.values?.length)).toEqual([4, 4]);
    expect(answer.embeddings?.[0]?.statistics?.tokenCount).toBe(2);
  });

  it('refuses a token signed by another key with 401, another project with 403, and answers the failures a model asks for', async () => {
    const { privateKey } = await import('node:crypto').then(({ generateKeyPairSync }) => generateKeyPairSync('rsa', { modulusLength: 2048 }));
    const stranger = { ...key, private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    const status = (call: Promise<unknown>) =>
      call.then(
        () => 200,
        (error: unknown) => (error instanceof ApiError ? error.status : -1),
      );
    expect(await status(vertex(stranger).models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }))).toBe(401);
    expect(await status(vertex(key, 'someone-elses-project').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }))).toBe(403);
    expect(await status(vertex(key).models.generateContent({ model: 'fail-429', contents: 'x' }))).toBe(429);
  });
});
