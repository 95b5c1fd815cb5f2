// Files, batches, vector stores and assistants as their clients meet them, through the official
// OpenAI SDK against the fake OpenAI and Azure OpenAI: the gateway's own file and batch ids, each
// resource owned by the creating key's project (another project's key gets 404), uploads and
// contents streamed, a batch's input lines naming the deployment's model, and a completed batch
// priced at the batch price and counted in the key's spend once.
import OpenAI, { NotFoundError, toFile } from 'openai';
import http from 'node:http';
import request from 'supertest';
import { RunningService } from '@arbor/platform';
import { AiGatewayConfig } from '@arbor/config';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { Client } from 'pg';
import {
  eventually,
  HOSTILE_PART_HEADERS,
  MASTER_KEY,
  postHostileForm,
  sdkClient,
  startGatewayOnFakes,
  startTestGateway,
  stopGatewayOnFakes,
  writeConfig,
} from './testing/gateway-test-support';

const refusal = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error('the call succeeded'),
    (error: unknown) => error,
  );

const batchInput = (alias: string) =>
  [1, 2]
    .map((n) =>
      JSON.stringify({ custom_id: `request-${n}`, method: 'POST', url: '/v1/chat/completions', body: { model: alias, messages: [{ role: 'user', content: `question ${n}` }] } }),
    )
    .join('\n') + '\n';

describe('files, batches, vector stores and assistants through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let alpha: OpenAI;
  let beta: OpenAI;
  let alphaKeyId: string;
  let alphaKey: string;
  const onGpt = { headers: { 'x-arbor-model': 'gpt' } };
  let config: (fakeUrl: string) => string;
  const spendOf = async (keyId: string) =>
    (
      await request(gateway.url)
        .get(`/api/v1/keys/${keyId}/spend`)
        .set({ authorization: `Bearer ${MASTER_KEY}` })
        .expect(200)
    ).body as { spend: number; totals: Record<string, number> };

  const newKey = async (project: string, aliases?: string[]) =>
    (
      await request(gateway.url)
        .post('/api/v1/keys')
        .set({ authorization: `Bearer ${MASTER_KEY}` })
        .send({ project, ...(aliases ? { aliases } : {}) })
        .expect(201)
    ).body as { key: string; id: string };

  beforeAll(async () => {
    ({ fake, database, gateway } = await startGatewayOnFakes(
      (config = (fakeUrl) => `model_list:
  - model_name: gpt
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 }
  - model_name: azure-gpt
    litellm_params: { model: azure/gpt-4o-mini, api_base: ${fakeUrl}/azure, api_key: azure-upstream, api_version: '2024-10-21' }
  - model_name: gpt-team-b
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-team-b }
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-6, api_base: ${fakeUrl}, api_key: sk-ant-upstream }
`),
    ));
    const alphaCreated = await newKey('alpha');
    alphaKeyId = alphaCreated.id;
    alphaKey = alphaCreated.key;
    alpha = sdkClient(gateway, alphaKey);
    beta = sdkClient(gateway, (await newKey('beta')).key);
  }, 60_000);

  afterAll(async () => {
    await stopGatewayOnFakes({ fake, database, gateway });
  });

  it('uploads, lists, retrieves, downloads and deletes a file under an id of its own, for its project only', async () => {
    const content = batchInput('gpt');
    const file = await alpha.files.create({ file: await toFile(Buffer.from(content), 'input.jsonl'), purpose: 'batch' }, onGpt);
    expect(file).toMatchObject({ object: 'file', filename: 'input.jsonl', purpose: 'batch', id: expect.stringMatching(/^file-gw/) });

    // The upstream got the lines naming its own model, under its own id.
    const upload = (await fake.requests()).filter((seen) => seen.method === 'POST' && seen.path === '/v1/files').at(-1);
    expect(upload?.body).toContain('"model":"gpt-4o-mini"');
    expect(upload?.body).not.toContain('"model":"gpt"');
    expect(upload?.headers['authorization']).toBe('Bearer sk-upstream');

    expect(await alpha.files.retrieve(file.id)).toMatchObject({ id: file.id, filename: 'input.jsonl', bytes: expect.any(Number) });
    expect(await (await alpha.files.content(file.id)).text()).toBe(content.replaceAll('"model":"gpt"', '"model":"gpt-4o-mini"'));
    expect((await alpha.files.list()).data.map((listed) => listed.id)).toContain(file.id);

    expect(await refusal(beta.files.retrieve(file.id))).toBeInstanceOf(NotFoundError);
    expect(await refusal(beta.files.content(file.id))).toBeInstanceOf(NotFoundError);
    expect(await refusal(beta.files.delete(file.id))).toBeInstanceOf(NotFoundError);
    expect((await beta.files.list()).data.map((listed) => listed.id)).not.toContain(file.id);

    expect(await alpha.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
    expect(await refusal(alpha.files.retrieve(file.id))).toBeInstanceOf(NotFoundError);
  });

  it('passes a binary upload and its download on byte for byte, and refuses a form without a file', async () => {
    const bytes = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, index) => (index * 7919) % 256));
    const file = await alpha.files.create({ file: await toFile(bytes, 'data.bin'), purpose: 'assistants' }, onGpt);
    expect(file.bytes).toBe(bytes.length);
    expect(Buffer.from(await (await alpha.files.content(file.id)).arrayBuffer()).equals(bytes)).toBe(true);

    const noFile = await request(gateway.url)
      .post('/v1/files')
      .set({ authorization: `Bearer ${MASTER_KEY}`, 'x-arbor-model': 'gpt' })
      .field('purpose', 'batch')
      .expect(400);
    expect(noFile.body).toMatchObject({ error: { type: 'invalid_request_error', param: 'file' } });
    const json = await request(gateway.url)
      .post('/v1/files')
      .set({ authorization: `Bearer ${MASTER_KEY}` })
      .send({ purpose: 'batch' })
      .expect(400);
    expect(json.body.error.message).toContain('multipart/form-data');
  });

  it.each(Object.entries(HOSTILE_PART_HEADERS))('answers an upload with %s with a 400, and stays up for the next upload', async (_what, partHeaders) => {
    expect(await postHostileForm(`${gateway.url}/v1/files`, MASTER_KEY, partHeaders)).toEqual({
      status: 400,
      body: { error: expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_request', message: expect.stringMatching(/^The multipart request cannot be read/) }) },
    });
    expect(await alpha.files.create({ file: await toFile(Buffer.from('still here'), 'next.txt'), purpose: 'assistants' }, onGpt)).toMatchObject({ filename: 'next.txt' });
  });

  it('refuses an upload announcing more than 512 MB with 413 before its body is sent', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const upload = http.request(`${gateway.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'multipart/form-data; boundary=B', 'content-length': String(5 * 1024 ** 3) },
      });
      upload.on('error', reject);
      upload.on('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body });
          upload.destroy();
        });
      });
      // Only the start of the form: the answer must not wait for the rest.
      upload.write('--B\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\n\r\n');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { type: 'invalid_request_error', code: 'file_too_large', param: 'file' } });
  });

  it("answers the upstream's refusal of a batch in its own words", async () => {
    const input = await alpha.files.create({ file: await toFile(Buffer.from(batchInput('gpt')), 'bad.jsonl'), purpose: 'batch' }, onGpt);
    const refused = await refusal(alpha.batches.create({ input_file_id: input.id, endpoint: '/v1/nothing' as '/v1/chat/completions', completion_window: '24h' }));
    expect(refused).toMatchObject({ status: 400, error: { type: 'invalid_request_error', param: 'endpoint', message: "Invalid value for 'endpoint'." } });
  });

  it('runs a batch to completion, rewrites its file ids and records its cost at the batch price once', async () => {
    const input = await alpha.files.create({ file: await toFile(Buffer.from(batchInput('gpt')), 'batch.jsonl'), purpose: 'batch' }, onGpt);
    const batch = await alpha.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch).toMatchObject({ object: 'batch', id: expect.stringMatching(/^batch_gw/), input_file_id: input.id });

    expect(await refusal(beta.batches.retrieve(batch.id))).toBeInstanceOf(NotFoundError);
    expect(await refusal(beta.batches.cancel(batch.id))).toBeInstanceOf(NotFoundError);
    expect(await refusal(beta.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }))).toBeInstanceOf(NotFoundError);
    expect((await beta.batches.list()).data.map((listed) => listed.id)).not.toContain(batch.id);
    expect((await alpha.batches.list()).data.map((listed) => listed.id)).toContain(batch.id);

    const done = await eventually(
      () => alpha.batches.retrieve(batch.id),
      (seen) => seen.status === 'completed',
    );
    expect(done).toMatchObject({ status: 'completed', input_file_id: input.id, output_file_id: expect.stringMatching(/^file-gw/) });
    const lines = (await (await alpha.files.content(done.output_file_id as string)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { custom_id: string; response: { body: { usage: { prompt_tokens: number } } } });
    expect(lines.map((line) => line.custom_id)).toEqual(['request-1', 'request-2']);
    expect(await refusal(beta.files.content(done.output_file_id as string))).toBeInstanceOf(NotFoundError);

    // Two lines of 7 prompt and 5 completion tokens, at half the standard price (OpenAI's batch discount).
    const expected = (2 * (7 * 0.000001 + 5 * 0.000002)) / 2;
    const spend = async () =>
      (
        await request(gateway.url)
          .get(`/api/v1/keys/${alphaKeyId}/spend`)
          .set({ authorization: `Bearer ${MASTER_KEY}` })
          .expect(200)
      ).body as { spend: number; totals: Record<string, number> };
    const settled = await eventually(spend, (report) => report.totals['prompt_tokens'] === 14);
    expect(settled.totals).toMatchObject({ prompt_tokens: 14, completion_tokens: 10 });
    expect(settled.totals['cost_usd']).toBeCloseTo(expected, 12);
    // Seen ended again, it is not counted again.
    await alpha.batches.retrieve(batch.id);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = await spend();
    expect(after.totals['prompt_tokens']).toBe(14);
    expect(after.spend).toBeCloseTo(expected, 12);
  });

  it('settles a batch that ended unwatched from the poller of another replica, once', async () => {
    const gamma = await newKey('gamma');
    const client = sdkClient(gateway, gamma.key);
    const input = await client.files.create({ file: await toFile(Buffer.from(batchInput('gpt')), 'unwatched.jsonl'), purpose: 'batch' }, onGpt);
    const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { fake_delay_ms: '0' } });
    // A minute later, as far as the poller can tell.
    const db = new Client({ connectionString: database.url });
    await db.connect();
    try {
      await db.query('update owned_resources set next_poll_at = now() where id = $1', [batch.id]);
    } finally {
      await db.end();
    }
    const replica = await startTestGateway(database, writeConfig(config(fake.url)));
    try {
      // The other replica's poller finds the batch on its first rounds, and writes its spend behind.
      const settled = await eventually(
        () => spendOf(gamma.id),
        (report) => report.totals['prompt_tokens'] === 14,
        20_000,
      );
      expect(settled.totals['prompt_tokens']).toBe(14);
      expect((await sdkClient(replica, gamma.key).batches.retrieve(batch.id)).status).toBe('completed');
      await client.batches.retrieve(batch.id);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await spendOf(gamma.id)).totals['prompt_tokens']).toBe(14);
    } finally {
      await replica.close();
    }
  });

  it('cancels a running batch', async () => {
    const input = await alpha.files.create({ file: await toFile(Buffer.from(batchInput('gpt')), 'slow.jsonl'), purpose: 'batch' }, onGpt);
    const batch = await alpha.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { fake_delay_ms: '600000' } });
    expect(await alpha.batches.cancel(batch.id)).toMatchObject({ id: batch.id, status: 'cancelled' });
  });

  it('keeps files and batches of an Azure alias on Azure, named by the target_model_names form field', async () => {
    const params = {
      target_model_names: 'azure-gpt',
      file: await toFile(Buffer.from(batchInput('azure-gpt')), 'azure.jsonl'),
      purpose: 'batch',
    } as unknown as OpenAI.FileCreateParams;
    const file = await alpha.files.create(params);
    const batch = await alpha.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const seen = (await fake.requests()).filter((request) => request.path.startsWith('/azure/openai/'));
    expect(seen.map((request) => request.path.split('?')[0])).toEqual(['/azure/openai/files', '/azure/openai/batches']);
    expect(seen[0]?.body).toContain('"model":"gpt-4o-mini"');
    expect(seen[0]?.body).not.toContain('target_model_names');
    expect(seen.every((request) => request.headers['api-key'] === 'azure-upstream' && request.path.includes('api-version=2024-10-21'))).toBe(true);
    expect(
      (
        await eventually(
          () => alpha.batches.retrieve(batch.id),
          (current) => current.status === 'completed',
        )
      ).output_file_id,
    ).toMatch(/^file-gw/);
  });

  describe('with no alias named (no target_model_names, no x-arbor-model)', () => {
    const keyFor = async (aliases: string[]) => sdkClient(gateway, (await newKey('alpha', aliases)).key);

    it('keeps files, batches, vector stores and threads on the one account the key reaches that holds them', async () => {
      const client = await keyFor(['gpt', 'claude']);
      const file = await client.files.create({ file: await toFile(Buffer.from(batchInput('gpt')), 'plain.jsonl'), purpose: 'batch' });
      const upload = (await fake.requests()).filter((seen) => seen.method === 'POST' && seen.path === '/v1/files').at(-1);
      expect(upload?.headers['authorization']).toBe('Bearer sk-upstream');
      expect(upload?.body).toContain('"model":"gpt-4o-mini"');
      const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      expect(batch).toMatchObject({ object: 'batch', input_file_id: file.id });
      expect(await client.vectorStores.create({ name: 'plain' })).toMatchObject({ object: 'vector_store', name: 'plain' });
      expect(await client.beta.threads.create({})).toMatchObject({ object: 'thread' });
      // The one account may be any provider's that stores files.
      const onAzure = await keyFor(['azure-gpt', 'claude']);
      await onAzure.files.create({ file: await toFile(Buffer.from('to azure'), 'azure.txt'), purpose: 'assistants' });
      expect(
        (await fake.requests())
          .filter((seen) => seen.method === 'POST' && seen.path.includes('/files'))
          .at(-1)
          ?.path.split('?')[0],
      ).toBe('/azure/openai/files');
    });

    it("takes the openai account among several, as LiteLLM's default custom_llm_provider, and another one by custom_llm_provider", async () => {
      const client = await keyFor(['azure-gpt', 'gpt']);
      await client.files.create({ file: await toFile(Buffer.from('to openai'), 'openai.txt'), purpose: 'assistants' });
      expect((await fake.requests()).filter((seen) => seen.method === 'POST' && seen.path.endsWith('/files')).at(-1)?.path).toBe('/v1/files');
      const params = { custom_llm_provider: 'azure', file: await toFile(Buffer.from('to azure'), 'azure.txt'), purpose: 'assistants' } as unknown as OpenAI.FileCreateParams;
      await client.files.create(params);
      const sent = (await fake.requests()).filter((seen) => seen.method === 'POST' && seen.path.includes('/files')).at(-1);
      expect(sent?.path.split('?')[0]).toBe('/azure/openai/files');
      expect(sent?.body).not.toContain('custom_llm_provider');
      await client.vectorStores.create({ name: 'on azure', custom_llm_provider: 'azure' } as OpenAI.VectorStoreCreateParams);
      const store = (await fake.requests()).filter((seen) => seen.method === 'POST' && seen.path.includes('/vector_stores')).at(-1);
      expect(store?.path.split('?')[0]).toBe('/azure/openai/vector_stores');
      expect(store?.body).not.toContain('custom_llm_provider');
    });

    it('names the aliases to choose from when the key reaches several accounts', async () => {
      const client = await keyFor(['gpt', 'gpt-team-b', 'azure-gpt', 'claude']);
      const refused = await refusal(client.files.create({ file: await toFile(Buffer.from('where?'), 'where.txt'), purpose: 'assistants' }));
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toBe(
        '400 Name the model alias that holds the new file: the form field target_model_names or the x-arbor-model header. ' +
          'The aliases this key may use reach 3 accounts that could hold it: "gpt" (openai); "azure-gpt" (azure); "gpt-team-b" (openai).',
      );
      expect(((await refusal(client.beta.threads.create({}))) as Error).message).toMatch(
        /^400 Name the model alias that holds the new thread: the x-arbor-model header\. .*"gpt-team-b" \(openai\)\.$/,
      );
      const claudeOnly = await keyFor(['claude']);
      expect(((await refusal(claudeOnly.vectorStores.create({ name: 'none' }))) as Error).message).toBe(
        '400 Name the model alias that holds the new vector store: the x-arbor-model header. None of the aliases this key may use is served by a provider that stores vector stores through this gateway.',
      );
    });
  });

  it("serves vector stores, their files and search with the gateway's file ids, for their project only", async () => {
    const file = await alpha.files.create({ file: await toFile(Buffer.from('returns are accepted within 30 days'), 'policy.txt'), purpose: 'assistants' }, onGpt);
    const store = await alpha.vectorStores.create({ name: 'policies', file_ids: [file.id] }, onGpt);
    expect(store).toMatchObject({ object: 'vector_store', name: 'policies' });
    const created = (await fake.requests()).filter((seen) => seen.method === 'POST' && seen.path === '/v1/vector_stores').at(-1);
    expect(created?.body).not.toContain(file.id);

    const second = await alpha.files.create({ file: await toFile(Buffer.from('shipping takes two days'), 'shipping.txt'), purpose: 'assistants' }, onGpt);
    expect(await alpha.vectorStores.files.create(store.id, { file_id: second.id })).toMatchObject({ object: 'vector_store.file', id: second.id });
    expect((await alpha.vectorStores.files.list(store.id)).data.map((listed) => listed.id).sort()).toEqual([file.id, second.id].sort());
    const results = await alpha.vectorStores.search(store.id, { query: 'return policy' });
    expect(results.data.map((result) => result.file_id).sort()).toEqual([file.id, second.id].sort());
    expect((await alpha.vectorStores.list()).data.map((listed) => listed.id)).toContain(store.id);

    expect(await refusal(beta.vectorStores.retrieve(store.id))).toBeInstanceOf(NotFoundError);
    expect(await refusal(beta.vectorStores.search(store.id, { query: 'return policy' }))).toBeInstanceOf(NotFoundError);
    expect(await refusal(beta.vectorStores.create({ name: 'stolen', file_ids: [file.id] }, onGpt))).toBeInstanceOf(NotFoundError);
    expect((await beta.vectorStores.list()).data.map((listed) => listed.id)).not.toContain(store.id);
  });

  it('refuses a NUL in a query string or an id in a body with 400 naming it, before any lookup', async () => {
    const asAlpha = { authorization: `Bearer ${alphaKey}`, 'content-type': 'application/json', 'x-arbor-model': 'gpt' };
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${gateway.url}${path}`, { method, headers: asAlpha, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: response.status, error: ((await response.json()) as { error: { type: string; code: string; param: string | null } }).error };
    };
    const refused = (param: string) => ({ status: 400, error: expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_request', param }) });
    expect(await send('GET', '/v1/files?purpose=a%00b')).toEqual(refused('purpose'));
    expect(await send('POST', '/v1/vector_stores', { name: 'nul', file_ids: ['file-a\u0000b'] })).toEqual(refused('file_ids[0]'));
    const store = await alpha.vectorStores.create({ name: 'nul target' }, onGpt);
    expect(await send('POST', `/v1/vector_stores/${store.id}/files`, { file_id: 'file-a\u0000b' })).toEqual(refused('file_id'));
    const thread = await alpha.beta.threads.create({}, onGpt);
    expect(await send('POST', `/v1/threads/${thread.id}/runs`, { assistant_id: 'asst_a\u0000b' })).toEqual(refused('assistant_id'));
    expect(await send('POST', '/v1/threads/runs', { assistant_id: 'asst_a\u0000b' })).toEqual(refused('assistant_id'));
    expect(await send('POST', '/v1/batches', { input_file_id: 'file-a\u0000b', endpoint: '/v1/chat/completions', completion_window: '24h' })).toEqual(refused('input_file_id'));
  });

  it('runs an assistant on a thread with its events streamed, for its project only', async () => {
    const assistant = await alpha.beta.assistants.create({ model: 'gpt', name: 'helper', instructions: 'answer briefly' });
    expect(assistant).toMatchObject({ object: 'assistant', model: 'gpt', name: 'helper' });
    expect((await alpha.beta.assistants.list()).data.map((listed) => listed.id)).toContain(assistant.id);

    const thread = await alpha.beta.threads.create({}, onGpt);
    await alpha.beta.threads.messages.create(thread.id, { role: 'user', content: 'hello' });
    const events: string[] = [];
    const stream = alpha.beta.threads.runs.stream(thread.id, { assistant_id: assistant.id });
    stream.on('event', (event) => events.push(event.event));
    const run = await stream.finalRun();
    expect(run.status).toBe('completed');
    expect(events).toEqual(expect.arrayContaining(['thread.run.created', 'thread.message.delta', 'thread.run.completed']));
    const messages = await alpha.beta.threads.messages.list(thread.id);
    const answer = messages.data.find((message) => message.role === 'assistant');
    expect(answer?.content[0]).toMatchObject({ type: 'text', text: { value: 'fake answer from gpt-4o-mini' } });
    const queued = await alpha.beta.threads.runs.create(thread.id, { assistant_id: assistant.id });
    expect(queued).toMatchObject({ status: 'queued', model: 'gpt' });
    expect(await alpha.beta.threads.runs.cancel(queued.id, { thread_id: thread.id })).toMatchObject({ id: queued.id, status: 'cancelled' });

    expect(await refusal(beta.beta.assistants.retrieve(assistant.id))).toBeInstanceOf(NotFoundError);
    expect((await beta.beta.assistants.list()).data.map((listed) => listed.id)).not.toContain(assistant.id);
    expect(await refusal(beta.beta.threads.messages.list(thread.id))).toBeInstanceOf(NotFoundError);
    // Another project's assistant cannot run on one's own thread.
    const own = await beta.beta.threads.create({}, onGpt);
    expect(await refusal(beta.beta.threads.runs.create(own.id, { assistant_id: assistant.id }))).toBeInstanceOf(NotFoundError);
  });
});
