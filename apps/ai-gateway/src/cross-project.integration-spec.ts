// One project's objects are out of another project's reach on every resource route: project alpha
// makes files, uploads, batches, vector stores, assistants, threads, conversations, stored responses
// and Anthropic files and message batches through the gateway's own /v1 routes and through the
// vendor pass-throughs /openai and /anthropic, with the official SDKs; project beta's key can
// neither list, read, change, continue nor delete any of them (a 404 in the vendor's envelope, as
// for an id that never existed), by the gateway's id or by the upstream's, while alpha still can.
// The gateway's own model calls may not name another project's objects by their upstream ids either.
// Paths no project owns (the vendors' admin APIs, stored chat completions) are refused to keys but
// for the configured allow-list, and open to the master key, which sees every project's objects.
import { request } from 'node:http';
import Anthropic, { toFile as toAnthropicFile } from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { Client } from 'pg';
import { asMaster, GatewayOnFakes, MASTER_KEY, rejectionOf, sdkClient, startGatewayOnFakes, stopGatewayOnFakes, eventually } from './testing/gateway-test-support';

const onGpt = { headers: { 'x-arbor-model': 'gpt' } };
const batchInput = (model: string) =>
  [1, 2]
    .map((n) => JSON.stringify({ custom_id: `request-${n}`, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: `question ${n}` }] } }))
    .join('\n') + '\n';

/** The call was refused with 404, as for an id that never existed. */
async function notFound(call: Promise<unknown>): Promise<void> {
  expect(await rejectionOf(call)).toMatchObject({ status: 404 });
}

const ids = (page: { data: { id: string }[] }) => page.data.map((item) => item.id);

describe("one project's objects on every resource route, out of another project's reach", () => {
  let running: GatewayOnFakes;
  let alphaKey: string;
  let betaKey: string;

  const native = (key: string) => sdkClient(running.gateway, key);
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${running.gateway.url}/openai/v1`, maxRetries: 0 });
  const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: `${running.gateway.url}/anthropic`, maxRetries: 0 });

  /** The upstream's id of an object the gateway's own routes know by an id of theirs. */
  const upstreamIdOf = async (id: string): Promise<string> => {
    const db = new Client({ connectionString: running.database.url });
    await db.connect();
    try {
      const rows = await db.query<{ upstream_id: string }>(
        'select upstream_id from owned_resources where id = $1 union all select upstream_id from stored_responses where id = $1',
        [id],
      );
      const upstream = rows.rows[0]?.upstream_id;
      if (!upstream) throw new Error(`no upstream id recorded for ${id}`);
      return upstream;
    } finally {
      await db.end();
    }
  };

  const raw = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${running.gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> | undefined) } });

  beforeAll(async () => {
    running = await startGatewayOnFakes(
      (fake) => `
model_list:
  - model_name: gpt
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake}/openai/v1, api_key: sk-upstream-openai }
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-5, api_base: ${fake}/anthropic, api_key: sk-upstream-anthropic }
general_settings:
  pass_through_allowed_paths:
    - { path: /openai/v1/organization/usage/**, methods: [GET] }
`,
    );
    const newKey = async (project: string) => {
      const created = await fetch(`${running.gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project }) });
      expect(created.status).toBe(201);
      return ((await created.json()) as { key: string }).key;
    };
    alphaKey = await newKey('alpha');
    betaKey = await newKey('beta');
  }, 60_000);

  afterAll(() => stopGatewayOnFakes(running));

  describe("the gateway's own routes", () => {
    it("files and batches: by the gateway's ids on /v1, and by the upstream's on /openai", async () => {
      const alpha = native(alphaKey);
      const beta = native(betaKey);
      const file = await alpha.files.create({ file: await toFile(Buffer.from(batchInput('gpt')), 'alpha.jsonl'), purpose: 'batch' }, onGpt);
      const batch = await alpha.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { fake_delay_ms: '600000' } });

      expect(ids(await beta.files.list())).not.toContain(file.id);
      await notFound(beta.files.retrieve(file.id));
      await notFound(beta.files.content(file.id));
      await notFound(beta.files.delete(file.id));
      expect(ids(await beta.batches.list())).not.toContain(batch.id);
      await notFound(beta.batches.retrieve(batch.id));
      await notFound(beta.batches.cancel(batch.id));
      await notFound(beta.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }));

      // The same objects under the ids the upstream gave them, through the pass-through.
      const upstreamFile = await upstreamIdOf(file.id);
      const upstreamBatch = await upstreamIdOf(batch.id);
      const betaVendor = openai(betaKey);
      expect(ids(await betaVendor.files.list())).not.toContain(upstreamFile);
      await notFound(betaVendor.files.retrieve(upstreamFile));
      await notFound(betaVendor.files.content(upstreamFile));
      await notFound(betaVendor.files.delete(upstreamFile));
      expect(ids(await betaVendor.batches.list())).not.toContain(upstreamBatch);
      await notFound(betaVendor.batches.retrieve(upstreamBatch));
      await notFound(betaVendor.batches.cancel(upstreamBatch));
      await notFound(betaVendor.batches.create({ input_file_id: upstreamFile, endpoint: '/v1/chat/completions', completion_window: '24h' }));

      const alphaVendor = openai(alphaKey);
      expect(await (await alphaVendor.files.content(upstreamFile)).text()).toContain('question 1');
      expect((await alphaVendor.batches.retrieve(upstreamBatch)).id).toBe(upstreamBatch);
      expect(await alpha.batches.cancel(batch.id)).toMatchObject({ status: 'cancelled' });
      expect(await alpha.files.delete(file.id)).toMatchObject({ deleted: true });
    });

    it('vector stores, assistants and threads: on /v1 and under the same ids on /openai', async () => {
      const alpha = native(alphaKey);
      const file = await alpha.files.create({ file: await toFile(Buffer.from('alpha policy'), 'policy.txt'), purpose: 'assistants' }, onGpt);
      const store = await alpha.vectorStores.create({ name: 'alpha store', file_ids: [file.id] }, onGpt);
      const assistant = await alpha.beta.assistants.create({ model: 'gpt', name: 'alpha helper', instructions: 'alpha secret instructions' });
      const thread = await alpha.beta.threads.create({ messages: [{ role: 'user', content: 'alpha secret message' }] }, onGpt);

      for (const beta of [native(betaKey), openai(betaKey)]) {
        expect(ids(await beta.vectorStores.list())).not.toContain(store.id);
        await notFound(beta.vectorStores.retrieve(store.id));
        await notFound(beta.vectorStores.update(store.id, { name: 'taken' }));
        await notFound(beta.vectorStores.files.list(store.id));
        await notFound(beta.vectorStores.search(store.id, { query: 'policy' }));
        await notFound(beta.vectorStores.delete(store.id));
        expect(ids(await beta.beta.assistants.list())).not.toContain(assistant.id);
        await notFound(beta.beta.assistants.retrieve(assistant.id));
        await notFound(beta.beta.assistants.update(assistant.id, { instructions: 'leak them' }));
        await notFound(beta.beta.assistants.delete(assistant.id));
        await notFound(beta.beta.threads.retrieve(thread.id));
        await notFound(beta.beta.threads.messages.list(thread.id));
        await notFound(beta.beta.threads.messages.create(thread.id, { role: 'user', content: 'hello' }));
        await notFound(beta.beta.threads.runs.create(thread.id, { assistant_id: assistant.id }));
        await notFound(beta.beta.threads.delete(thread.id));
      }
      // Nor does another project's assistant run on beta's own thread.
      const own = await openai(betaKey).beta.threads.create({});
      await notFound(openai(betaKey).beta.threads.runs.create(own.id, { assistant_id: assistant.id }));

      const alphaVendor = openai(alphaKey);
      expect((await alphaVendor.beta.assistants.retrieve(assistant.id)).instructions).toBe('alpha secret instructions');
      expect((await alphaVendor.beta.threads.messages.list(thread.id)).data).toHaveLength(1);
      expect((await alphaVendor.vectorStores.retrieve(store.id)).id).toBe(store.id);
      expect(await alpha.beta.assistants.delete(assistant.id)).toMatchObject({ deleted: true });
    });

    it("stored responses: by the gateway's id on /v1, by the upstream's on /openai, and as previous_response_id", async () => {
      const alpha = native(alphaKey);
      const beta = native(betaKey);
      const response = await alpha.responses.create({ model: 'gpt', input: 'alpha secret prompt' });
      await notFound(beta.responses.retrieve(response.id));
      await notFound(beta.responses.inputItems.list(response.id));
      await notFound(beta.responses.create({ model: 'gpt', input: 'continue', previous_response_id: response.id }));
      await notFound(beta.responses.cancel(response.id));
      await notFound(beta.responses.delete(response.id));

      const upstream = await upstreamIdOf(response.id);
      const betaVendor = openai(betaKey);
      await notFound(betaVendor.responses.retrieve(upstream));
      await notFound(betaVendor.responses.inputItems.list(upstream));
      await notFound(betaVendor.responses.create({ model: 'gpt-4o-mini', input: 'continue', previous_response_id: upstream }));
      await notFound(betaVendor.responses.cancel(upstream));
      await notFound(betaVendor.responses.delete(upstream));

      expect((await openai(alphaKey).responses.retrieve(upstream)).id).toBe(upstream);
      expect((await alpha.responses.retrieve(response.id)).id).toBe(response.id);
    });
  });

  describe("the gateway's own model calls", () => {
    it("refuse to name another project's conversation, file or vector store by the upstream's id", async () => {
      const alphaVendor = openai(alphaKey);
      const conversation = await alphaVendor.conversations.create({ items: [{ type: 'message', role: 'user', content: 'alpha secret' }] });
      const file = await alphaVendor.files.create({ file: await toFile(Buffer.from('alpha secret file'), 'alpha.txt'), purpose: 'user_data' });
      const store = await alphaVendor.vectorStores.create({ name: 'alpha store' });
      const claudeFile = await anthropic(alphaKey).files.upload({ file: await toAnthropicFile(Buffer.from('alpha secret report'), 'report.txt', { type: 'text/plain' }) });

      const beta = native(betaKey);
      await notFound(beta.responses.create({ model: 'gpt', input: 'go on', conversation: conversation.id }));
      await notFound(beta.responses.create({ model: 'gpt', input: 'search', tools: [{ type: 'file_search', vector_store_ids: [store.id] }] }));
      await notFound(beta.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: file.id } }] }] }));
      const document = { type: 'document', source: { type: 'file', file_id: claudeFile.id } } as unknown as Anthropic.TextBlockParam;
      const viaMessages = new Anthropic({ apiKey: betaKey, baseURL: running.gateway.url, maxRetries: 0 });
      await notFound(viaMessages.messages.create({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: [document] }] }));

      // Nor over the Responses API's WebSocket.
      const socket = new ResponsesWS(native(betaKey));
      try {
        const refused = new Promise<string>((resolve) => {
          socket.on('error', (error: Error) => resolve(error.message));
          socket.on('event', (event: OpenAI.Responses.ResponsesServerEvent) => {
            if (event.type === 'response.completed') resolve('completed');
          });
        });
        socket.send({ type: 'response.create', model: 'gpt', input: 'go on', conversation: conversation.id });
        expect(await refused).toContain(`Conversation with id '${conversation.id}' not found.`);
      } finally {
        socket.close();
      }

      expect((await native(alphaKey).responses.create({ model: 'gpt', input: 'go on', conversation: conversation.id, store: false })).status).toBe('completed');
    });
  });

  describe('the OpenAI pass-through', () => {
    it('files and uploads', async () => {
      const alpha = openai(alphaKey);
      const beta = openai(betaKey);
      const file = await alpha.files.create({ file: await toFile(Buffer.from('alpha secret prompts'), 'alpha.txt'), purpose: 'assistants' });
      const upload = await alpha.uploads.create({ bytes: 12, filename: 'parts.txt', mime_type: 'text/plain', purpose: 'assistants' });
      const part = await alpha.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('alpha parts!'), 'part') });

      expect(ids(await beta.files.list())).not.toContain(file.id);
      await notFound(beta.files.retrieve(file.id));
      await notFound(beta.files.content(file.id));
      await notFound(beta.files.delete(file.id));
      await notFound(beta.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('beta'), 'part') }));
      await notFound(beta.uploads.complete(upload.id, { part_ids: [part.id] }));
      await notFound(beta.uploads.cancel(upload.id));

      const completed = await alpha.uploads.complete(upload.id, { part_ids: [part.id] });
      const made = completed.file?.id as string;
      expect(made).toBeDefined();
      await notFound(beta.files.content(made));
      expect(await (await alpha.files.content(made)).text()).toBe('alpha parts!');
      expect(ids(await alpha.files.list())).toEqual(expect.arrayContaining([file.id, made]));
      expect(await (await alpha.files.content(file.id)).text()).toBe('alpha secret prompts');
      expect(await alpha.files.delete(file.id)).toMatchObject({ deleted: true });
    });

    it('batches, their input file named in the body and their output file named in the answer', async () => {
      const alpha = openai(alphaKey);
      const beta = openai(betaKey);
      const input = await alpha.files.create({ file: await toFile(Buffer.from(batchInput('gpt-4o-mini')), 'batch.jsonl'), purpose: 'batch' });
      const batch = await alpha.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

      expect(ids(await beta.batches.list())).not.toContain(batch.id);
      await notFound(beta.batches.retrieve(batch.id));
      await notFound(beta.batches.cancel(batch.id));
      await notFound(beta.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }));

      const done = await eventually(
        () => alpha.batches.retrieve(batch.id),
        (seen) => seen.status === 'completed',
      );
      const output = done.output_file_id as string;
      expect(await (await alpha.files.content(output)).text()).toContain('request-1');
      await notFound(beta.files.content(output));
      expect(ids(await alpha.batches.list())).toContain(batch.id);
    });

    it('vector stores, assistants, threads and runs', async () => {
      const alpha = openai(alphaKey);
      const beta = openai(betaKey);
      const file = await alpha.files.create({ file: await toFile(Buffer.from('alpha handbook'), 'handbook.txt'), purpose: 'assistants' });
      const store = await alpha.vectorStores.create({ name: 'alpha store', file_ids: [file.id] });
      const assistant = await alpha.beta.assistants.create({
        model: 'gpt-4o-mini',
        instructions: 'alpha secret instructions',
        tools: [{ type: 'file_search' }],
        tool_resources: { file_search: { vector_store_ids: [store.id] } },
      });
      const thread = await alpha.beta.threads.create({ messages: [{ role: 'user', content: 'alpha secret message' }] });
      const started = await alpha.beta.threads.createAndRun({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'alpha started' }] } });

      expect(ids(await beta.vectorStores.list())).not.toContain(store.id);
      await notFound(beta.vectorStores.retrieve(store.id));
      await notFound(beta.vectorStores.update(store.id, { name: 'taken' }));
      await notFound(beta.vectorStores.files.list(store.id));
      await notFound(beta.vectorStores.files.retrieve(file.id, { vector_store_id: store.id }));
      await notFound(beta.vectorStores.fileBatches.create(store.id, { file_ids: [] }));
      await notFound(beta.vectorStores.delete(store.id));
      // Nor may beta's own objects name alpha's.
      await notFound(beta.vectorStores.create({ name: 'stolen', file_ids: [file.id] }));
      const own = await beta.vectorStores.create({ name: 'beta store' });
      await notFound(beta.vectorStores.files.create(own.id, { file_id: file.id }));
      await notFound(beta.beta.assistants.create({ model: 'gpt-4o-mini', tool_resources: { file_search: { vector_store_ids: [store.id] } } }));

      expect(ids(await beta.beta.assistants.list())).not.toContain(assistant.id);
      await notFound(beta.beta.assistants.retrieve(assistant.id));
      await notFound(beta.beta.assistants.update(assistant.id, { instructions: 'leak them' }));
      await notFound(beta.beta.assistants.delete(assistant.id));
      for (const threadId of [thread.id, started.thread_id]) {
        await notFound(beta.beta.threads.retrieve(threadId));
        await notFound(beta.beta.threads.update(threadId, { metadata: { taken: 'yes' } }));
        await notFound(beta.beta.threads.messages.list(threadId));
        await notFound(beta.beta.threads.messages.create(threadId, { role: 'user', content: 'hello' }));
        await notFound(beta.beta.threads.runs.list(threadId));
        await notFound(beta.beta.threads.delete(threadId));
      }
      await notFound(beta.beta.threads.runs.retrieve(started.id, { thread_id: started.thread_id }));
      await notFound(beta.beta.threads.runs.cancel(started.id, { thread_id: started.thread_id }));
      await notFound(beta.beta.threads.runs.steps.list(started.id, { thread_id: started.thread_id }));
      await notFound(beta.beta.threads.createAndRun({ assistant_id: assistant.id }));

      expect((await alpha.beta.assistants.retrieve(assistant.id)).instructions).toBe('alpha secret instructions');
      expect((await alpha.beta.threads.messages.list(thread.id)).data).toHaveLength(1);
      expect((await alpha.beta.threads.runs.create(thread.id, { assistant_id: assistant.id })).status).toBe('queued');
      expect((await alpha.beta.threads.retrieve(started.thread_id)).id).toBe(started.thread_id);
      expect(ids(await alpha.vectorStores.list())).toContain(store.id);
      expect(await alpha.beta.threads.delete(thread.id)).toMatchObject({ deleted: true });
      expect(await alpha.beta.assistants.delete(assistant.id)).toMatchObject({ deleted: true });
      expect(await alpha.vectorStores.delete(store.id)).toMatchObject({ deleted: true });
    });

    it("pages a list past other projects' objects: a page of the upstream's holding none of beta's is not the end of beta's list", async () => {
      const beta = openai(betaKey);
      const own = await beta.beta.assistants.create({ model: 'gpt-4o-mini', name: 'beta paged' });
      for (let n = 0; n < 5; n++) await openai(alphaKey).beta.assistants.create({ model: 'gpt-4o-mini', name: `alpha ${n}` });
      // Newest first, two a page: the upstream's first pages are all alpha's.
      const first = await beta.beta.assistants.list({ limit: 2 });
      expect(first.data.map((assistant) => assistant.name)).toContain('beta paged');
      const seen: string[] = [];
      for await (const assistant of beta.beta.assistants.list({ limit: 2 })) seen.push(assistant.id);
      expect(seen).toContain(own.id);
    });

    it('conversations and stored responses, streamed or not, also as what a response continues', async () => {
      const alpha = openai(alphaKey);
      const beta = openai(betaKey);
      const conversation = await alpha.conversations.create({ items: [{ type: 'message', role: 'user', content: 'alpha secret' }] });
      const response = await alpha.responses.create({ model: 'gpt-4o-mini', input: 'alpha secret prompt' });
      let streamedId = '';
      for await (const event of await alpha.responses.create({ model: 'gpt-4o-mini', input: 'alpha streamed', stream: true })) {
        if (event.type === 'response.created') streamedId = event.response.id;
      }

      await notFound(beta.conversations.retrieve(conversation.id));
      await notFound(beta.conversations.update(conversation.id, { metadata: { taken: 'yes' } }));
      await notFound(beta.conversations.items.list(conversation.id));
      await notFound(beta.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'injected' }] }));
      const item = (await alpha.conversations.items.list(conversation.id)).data[0] as { id: string };
      await notFound(beta.conversations.items.retrieve(item.id, { conversation_id: conversation.id }));
      await notFound(beta.conversations.items.delete(item.id, { conversation_id: conversation.id }));
      await notFound(beta.conversations.delete(conversation.id));
      await notFound(beta.responses.create({ model: 'gpt-4o-mini', input: 'continue', conversation: conversation.id }));
      for (const id of [response.id, streamedId]) {
        await notFound(beta.responses.retrieve(id));
        await notFound(beta.responses.inputItems.list(id));
        await notFound(beta.responses.create({ model: 'gpt-4o-mini', input: 'continue', previous_response_id: id }));
        await notFound(beta.responses.delete(id));
      }
      // Nor when the body calls itself a form: only the vendor's upload paths take one.
      const smuggled = await raw('/openai/v1/responses', betaKey, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        body: JSON.stringify({ model: 'gpt-4o-mini', input: 'go on', previous_response_id: response.id }),
      });
      expect(smuggled.status).toBe(404);
      const refused = await raw(`/openai/v1/responses/${response.id}`, betaKey);
      expect(await refused.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'response_not_found', message: `Response with id '${response.id}' not found.` } });

      expect((await alpha.responses.retrieve(streamedId)).id).toBe(streamedId);
      expect((await alpha.responses.create({ model: 'gpt-4o-mini', input: 'go on', previous_response_id: response.id })).previous_response_id).toBe(response.id);
      expect((await alpha.conversations.items.list(conversation.id)).data).toHaveLength(1);
      expect(await alpha.responses.delete(response.id)).toMatchObject({ deleted: true });
      expect(await alpha.conversations.delete(conversation.id)).toMatchObject({ deleted: true });
    });
  });

  describe('the Anthropic pass-through', () => {
    it('files and message batches', async () => {
      const alpha = anthropic(alphaKey);
      const beta = anthropic(betaKey);
      const file = await alpha.files.upload({ file: await toAnthropicFile(Buffer.from('alpha secret report'), 'report.txt', { type: 'text/plain' }) });
      const batch = await alpha.messages.batches.create({
        requests: [{ custom_id: 'alpha', params: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'alpha secret' }] } }],
      });

      expect(ids(await beta.files.list())).not.toContain(file.id);
      await notFound(beta.files.retrieveMetadata(file.id));
      await notFound(beta.files.delete(file.id));
      const document = { type: 'document', source: { type: 'file', file_id: file.id } } as unknown as Anthropic.TextBlockParam;
      await notFound(beta.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: [document] }] }));
      expect(ids(await beta.messages.batches.list())).not.toContain(batch.id);
      await notFound(beta.messages.batches.retrieve(batch.id));
      await notFound(beta.messages.batches.cancel(batch.id));
      await notFound(beta.messages.batches.delete(batch.id));
      const results = await raw(`/anthropic/v1/messages/batches/${batch.id}/results`, betaKey, { headers: { 'anthropic-version': '2023-06-01' } });
      expect(results.status).toBe(404);
      expect(await results.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: `Message batch not found: ${batch.id}` } });

      expect((await alpha.files.retrieveMetadata(file.id)).filename).toBe('report.txt');
      expect(ids(await alpha.messages.batches.list())).toContain(batch.id);
      expect(await alpha.messages.batches.delete(batch.id)).toMatchObject({ type: 'message_batch_deleted' });
      expect(await alpha.files.delete(file.id)).toMatchObject({ type: 'file_deleted' });
    });
  });

  describe('what no project owns', () => {
    it("refuses the vendors' admin APIs, stored chat completions and ambiguous paths to keys, but opens the allow-list", async () => {
      for (const [path, init] of [
        ['/openai/v1/organization/users', {}],
        ['/openai/v1/organization/admin_api_keys', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }],
        ['/openai/v1/chat/completions', {}],
        ['/openai/v1/fine_tuning/jobs', {}],
        ['/openai/v1/organization/usage/completions', { method: 'POST', body: '{}' }],
      ] as const) {
        const refused = await raw(path, alphaKey, init as RequestInit);
        expect({ path, status: refused.status }).toEqual({ path, status: 403 });
        expect(await refused.json()).toMatchObject({
          error: { code: 'pass_through_path_not_allowed', message: expect.stringContaining('general_settings.pass_through_allowed_paths') },
        });
      }
      // A dot segment would leave the object it names (fetch resolves them itself: sent as written here).
      const owned = await openai(alphaKey).files.create({ file: await toFile(Buffer.from('alpha'), 'alpha.txt'), purpose: 'assistants' });
      for (const dots of ['..', '%2e%2e', '.%2E', '%2e']) {
        const status = await new Promise<number | undefined>((resolve, reject) => {
          const url = new URL(running.gateway.url);
          request({ host: url.hostname, port: url.port, path: `/openai/v1/files/${owned.id}/${dots}/other`, headers: { authorization: `Bearer ${alphaKey}` } }, (answer) => {
            answer.resume();
            resolve(answer.statusCode);
          })
            .on('error', reject)
            .end();
        });
        expect({ dots, status }).toEqual({ dots, status: 403 });
      }
      // An id that is no text is a 400 naming it, never a 500.
      expect((await raw('/openai/v1/files/a%00b', alphaKey)).status).toBe(400);
      const nul = await raw('/v1/chat/completions', alphaKey, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'a\u0000b' } }] }] }),
      });
      expect({ status: nul.status, body: await nul.json() }).toMatchObject({ status: 400, body: { error: { param: 'file_id' } } });
      const anthropicAdmin = await raw('/anthropic/v1/organizations/api_keys', alphaKey, { headers: { 'anthropic-version': '2023-06-01' } });
      expect(anthropicAdmin.status).toBe(403);
      expect(await anthropicAdmin.json()).toMatchObject({ type: 'error', error: { type: 'permission_error', code: 'pass_through_path_not_allowed' } });

      // The allow-list and the master key reach the vendor (the fake answers its own 404 for paths it does not serve).
      const usage = await raw('/openai/v1/organization/usage/completions', alphaKey);
      expect(usage.status).toBe(404);
      expect(await usage.text()).toContain('fake: unknown url');
      const master = await raw('/openai/v1/organization/users', MASTER_KEY);
      expect(master.status).toBe(404);
      expect(await master.text()).toContain('fake: unknown url');
    });

    it("lets the master key see every project's objects, and keeps its own from the projects", async () => {
      const alphaFile = await openai(alphaKey).files.create({ file: await toFile(Buffer.from('alpha'), 'alpha.txt'), purpose: 'assistants' });
      const masterFile = await openai(MASTER_KEY).files.create({ file: await toFile(Buffer.from('master'), 'master.txt'), purpose: 'assistants' });
      expect(ids(await openai(MASTER_KEY).files.list())).toEqual(expect.arrayContaining([alphaFile.id, masterFile.id]));
      expect(await (await openai(MASTER_KEY).files.content(alphaFile.id)).text()).toBe('alpha');
      await notFound(openai(alphaKey).files.content(masterFile.id));
      expect(ids(await openai(alphaKey).files.list())).not.toContain(masterFile.id);
    });
  });
});
