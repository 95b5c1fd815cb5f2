// The fake's stored resources against the official openai SDK, as the SDK meets OpenAI's and
// Azure OpenAI's: multipart uploads and contents, a batch that completes with an output file of
// chat completions with usage per line, vector store search, streamed runs, 404s in OpenAI's shape.
import OpenAI, { AzureOpenAI, NotFoundError, toFile } from 'openai';
import { startFakeProviders, type FakeProviders } from './fake-providers.ts';

describe('the fake OpenAI files, batches, vector stores and assistants through the openai SDK', () => {
  let fake: FakeProviders;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeProviders();
    client = new OpenAI({ apiKey: 'sk-fake', baseURL: `${fake.url}/v1`, maxRetries: 0 });
  });

  afterAll(() => fake.close());

  it('completes a batch with an output file of chat completions and their usage', async () => {
    const line = (n: number) => JSON.stringify({ custom_id: `r${n}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'tokens-3-2', messages: [] } });
    const input = await client.files.create({ file: await toFile(Buffer.from(`${line(1)}\n${line(2)}\n`), 'in.jsonl'), purpose: 'batch' });
    expect(input).toMatchObject({ object: 'file', purpose: 'batch', filename: 'in.jsonl', status: 'processed' });
    const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { fake_delay_ms: '0' } });
    expect(batch.status).toBe('validating');
    const done = await client.batches.retrieve(batch.id);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 } });
    const output = (await (await client.files.content(done.output_file_id as string)).text())
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(output[1]).toMatchObject({
      custom_id: 'r2',
      error: null,
      response: { status_code: 200, body: { object: 'chat.completion', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } },
    });
  });

  it('answers an unknown file as OpenAI does', async () => {
    const refused = await client.files.retrieve('file-missing').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotFoundError);
    expect((refused as NotFoundError).error).toEqual({ message: 'No such File object: file-missing', type: 'invalid_request_error', param: 'id', code: null });
  });

  it('searches a vector store and streams a run of an assistant', async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from('returns within 30 days'), 'faq.txt'), purpose: 'assistants' });
    const store = await client.vectorStores.create({ name: 'faq', file_ids: [file.id] });
    expect((await client.vectorStores.search(store.id, { query: 'returns' })).data[0]).toMatchObject({
      file_id: file.id,
      content: [{ type: 'text', text: 'returns within 30 days' }],
    });
    const assistant = await client.beta.assistants.create({ model: 'gpt-4o-mini' });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'hi' }] });
    const run = await client.beta.threads.runs.stream(thread.id, { assistant_id: assistant.id }).finalRun();
    expect(run).toMatchObject({ status: 'completed', usage: { total_tokens: 12 } });
  });

  it('serves the same resources at Azure OpenAI paths with api-key and api-version', async () => {
    const azure = new AzureOpenAI({ endpoint: `${fake.url}/azure`, apiKey: 'azure-fake-key', apiVersion: '2024-10-21', maxRetries: 0 });
    const file = await azure.files.create({ file: await toFile(Buffer.from('{}\n'), 'a.jsonl'), purpose: 'batch' });
    expect(await azure.files.retrieve(file.id)).toMatchObject({ id: file.id, filename: 'a.jsonl' });
    const seen = (await (await fetch(`${fake.url}/_fake/requests`)).json()) as { path: string; headers: Record<string, string> }[];
    expect(seen.at(-1)).toMatchObject({ path: `/azure/openai/files/${file.id}?api-version=2024-10-21`, headers: { 'api-key': 'azure-fake-key' } });
  });
});
