// Stored responses of the Responses API as its clients meet them, through the official OpenAI SDK:
// retrieve, delete, input items, previous_response_id continued by a second gateway process (the
// built app) on the same database (nothing of the conversation lives in a gateway's memory),
// project ownership, background responses and their cancellation, compaction, token counts and
// WebSocket mode.
import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { WebSocket } from 'ws';
import { Client } from 'pg';
import request from 'supertest';
import { RunningService } from '@arbor/platform';
import { AiGatewayConfig } from '@arbor/config';
import { BuiltService, FakeProvidersProcess, startBuiltService, TestDatabase } from '@arbor/testing';
import { eventually, lastRequestWith, MASTER_KEY, sdkClient, startGatewayOnFakes, startTestGateway, stopGatewayOnFakes, writeConfig } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, base: string) => `
  - model_name: ${alias}
    litellm_params: { model: ${model}, api_base: ${base}, api_key: sk-upstream }`;

const refusal = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error('the call succeeded'),
    (error: unknown) => error,
  );

describe('stored responses through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let second: BuiltService;
  let client: OpenAI;
  let config: (fakeUrl: string) => string;

  const keyOf = async (project: string) => {
    const created = (
      await request(gateway.url)
        .post('/api/v1/keys')
        .set({ authorization: `Bearer ${MASTER_KEY}` })
        .send({ project })
        .expect(201)
    ).body as { key: string };
    return created.key;
  };

  beforeAll(async () => {
    config = (fakeUrl) => `model_list:${[
      deployment('gpt', 'openai/gpt-4o-mini', `${fakeUrl}/v1`),
      deployment('claude', 'anthropic/claude-sonnet-4-5', `${fakeUrl}/anthropic`),
      deployment('claude-silent', 'anthropic/fail-timeout', `${fakeUrl}/anthropic`),
      deployment('claude-held', 'anthropic/hold-background-stream', `${fakeUrl}/anthropic`),
    ].join('')}
`;
    ({ fake, database, gateway, client } = await startGatewayOnFakes(config));
    // Logging at info: what it logs is searched for the conversations' text below.
    second = await startBuiltService('ai-gateway', 'AIGW_LISTEN_ADDR', {
      AIGW_DATABASE_URL: database.url,
      AIGW_CONFIG: writeConfig(config(fake.url)),
      AIGW_MASTER_KEY: MASTER_KEY,
      AIGW_LOG: 'info',
    });
  }, 60_000);

  afterAll(async () => {
    await second?.kill('SIGTERM');
    await stopGatewayOnFakes({ fake, database, gateway });
  });

  it('retrieves a stored response by id, natively served or bridged, and forgets it once deleted', async () => {
    for (const model of ['gpt', 'claude']) {
      const created = await client.responses.create({ model, input: `stored ${model}` });
      const retrieved = await sdkClient(second).responses.retrieve(created.id);
      expect(retrieved).toMatchObject({ id: created.id, status: 'completed', output: created.output });
      expect(retrieved.output_text).toBe(created.output_text);
      await client.responses.delete(created.id);
      expect(await refusal(client.responses.retrieve(created.id))).toBeInstanceOf(NotFoundError);
    }
  });

  it('forgets a response once AIGW_RESPONSES_RETENTION has passed', async () => {
    const brief = await startTestGateway(database, writeConfig(config(fake.url)), { AIGW_RESPONSES_RETENTION: '1s' });
    try {
      const created = await sdkClient(brief).responses.create({ model: 'claude', input: 'kept briefly' });
      expect((await sdkClient(brief).responses.retrieve(created.id)).id).toBe(created.id);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await refusal(sdkClient(brief).responses.retrieve(created.id))).toBeInstanceOf(NotFoundError);
      expect(await refusal(sdkClient(brief).responses.create({ model: 'claude', input: 'x', previous_response_id: created.id }))).toBeInstanceOf(NotFoundError);
    } finally {
      await brief.close();
    }
  });

  it('keeps a streamed response before the client has its last event', async () => {
    const final = await client.responses.stream({ model: 'claude', input: 'stored streamed' }).finalResponse();
    expect((await sdkClient(second).responses.retrieve(final.id)).output_text).toBe('fake answer from claude-sonnet-4-5');
  });

  it('keeps a response whose prompt carries a NUL character, which jsonb cannot hold, with U+FFFD in its stored copy', async () => {
    const created = await client.responses.create({ model: 'gpt', instructions: 'nul \u0000 here', input: 'nul input \u0000' });
    const items = await client.responses.inputItems.list(created.id);
    expect(items.data[0]).toMatchObject({ type: 'message', content: [{ type: 'input_text', text: 'nul input \ufffd' }] });
  });

  it('does not keep a response created with store: false', async () => {
    const created = await client.responses.create({ model: 'claude', input: 'not stored', store: false });
    expect(await refusal(client.responses.retrieve(created.id))).toBeInstanceOf(NotFoundError);
    expect(await refusal(client.responses.create({ model: 'claude', input: 'x', previous_response_id: created.id }))).toBeInstanceOf(NotFoundError);
  });

  it('runs a tool loop with previous_response_id whose second turn another gateway instance serves, the earlier turns sent as input', async () => {
    const tools = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object', properties: { argument: { type: 'string' } } }, strict: false }];
    const first = await client.responses.create({ model: 'claude', instructions: 'Use the tool.', input: 'loop question', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call');
    const turn = await sdkClient(second).responses.create({
      model: 'claude',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'loop result' }],
      tools,
    });
    expect(turn.output_text).toBe('fake answer from claude-sonnet-4-5');
    expect(turn.previous_response_id).toBe(first.id);
    const seen = await lastRequestWith(fake, 'loop result');
    // The instructions of a turn before are not carried over, as OpenAI documents.
    expect(seen.json['system']).toBeUndefined();
    expect(seen.json['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'loop question' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'fake answer from claude-sonnet-4-5' },
          { type: 'tool_use', id: call.call_id, name: 'lookup', input: { argument: 'fake' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.call_id, content: 'loop result' }] },
    ]);
    // A third turn continues from the second, on the first instance again.
    await client.responses.create({ model: 'claude', previous_response_id: turn.id, input: 'loop third' });
    const third = await lastRequestWith(fake, 'loop third');
    expect((third.json['messages'] as unknown[]).length).toBe(5);
    // The stored content is the user's: the process that read and stored it logged none of it.
    // Log lines leave in batches, at least every 100 ms: the request lines are waited for, then read.
    await eventually(
      async () => second.output(),
      (output) => output.includes('request completed'),
    );
    for (const text of ['loop question', 'loop result', 'fake answer from claude']) expect(second.output()).not.toContain(text);
  });

  it("lets the upstream that answered natively continue from its own state, and a bridged alias from the gateway's copy", async () => {
    const first = await client.responses.create({ model: 'gpt', input: 'native first' });
    const continued = await sdkClient(second).responses.create({ model: 'gpt', previous_response_id: first.id, input: 'native second' });
    // The client knows the response by the gateway's id; the upstream is asked with its own (the
    // fake refuses an id it did not make, as OpenAI does), and the answer is the gateway's again.
    const native = await lastRequestWith(fake, 'native second');
    expect(native.json).toMatchObject({ input: 'native second', previous_response_id: expect.stringMatching(/^resp_fake/) });
    expect(first.id).not.toMatch(/^resp_fake/);
    expect(continued).toMatchObject({ previous_response_id: first.id, status: 'completed' });
    expect(continued.id).not.toMatch(/^resp_fake/);
    // Every answer names the response it continues, also where the upstream was sent the conversation instead of an id.
    const fromClaude = await client.responses.create({ model: 'claude', input: 'bridged first' });
    expect(await client.responses.create({ model: 'gpt', previous_response_id: fromClaude.id, input: 'native after bridged' })).toMatchObject({
      previous_response_id: fromClaude.id,
    });
    expect((await lastRequestWith(fake, 'native after bridged')).json['previous_response_id']).toBeUndefined();
    expect(await client.responses.stream({ model: 'gpt', previous_response_id: fromClaude.id, input: 'streamed after bridged' }).finalResponse()).toMatchObject({
      previous_response_id: fromClaude.id,
    });
    expect(await client.responses.create({ model: 'gpt', previous_response_id: fromClaude.id, input: 'unstored after bridged', store: false })).toMatchObject({
      previous_response_id: fromClaude.id,
    });
    await client.responses.create({ model: 'claude', previous_response_id: first.id, input: 'switched to claude' });
    const bridged = await lastRequestWith(fake, 'switched to claude');
    expect(bridged.json['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'native first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'fake answer from gpt-4o-mini' }] },
      { role: 'user', content: [{ type: 'text', text: 'switched to claude' }] },
    ]);
  });

  describe('a response another replica is still completing', () => {
    // What a replica leaves between an answer's last byte and its completion a moment later: the
    // response reserved (in progress, nothing in it yet). Completed here after `delay` ms (never,
    // without one) with the content of `like`, its output items renamed so that only this
    // response holds them.
    let db: Client;
    const reservedLike = async (like: OpenAI.Responses.Response, id: string, delay?: number) => {
      await db.query(
        `insert into stored_responses (id, project, created_at, expires_at, status, input, response, background) values ($1, 'completing', now(), now() + interval '1 hour', 'in_progress', '[]', '{}', false)`,
        [id],
      );
      const completed = { ...like, id, output: like.output.map((item) => ({ ...item, id: `${item.id ?? ''}_${id}` })) };
      if (delay === undefined) return { completed, completion: Promise.resolve() };
      const completion = new Promise((resolve) => setTimeout(resolve, delay)).then(() =>
        db.query(`update stored_responses set status = 'completed', response = $2, input = (select input from stored_responses where id = $3) where id = $1`, [
          id,
          JSON.stringify(completed),
          like.id,
        ]),
      );
      return { completed, completion };
    };

    beforeAll(async () => {
      db = new Client({ connectionString: database.url });
      await db.connect();
    });
    afterAll(() => db.end());

    it('is read whole once completed: retrieved, continued by previous_response_id, its items referenced', async () => {
      const owner = sdkClient(second, await keyOf('completing'));
      const like = await owner.responses.create({ model: 'claude', input: 'answered elsewhere' });
      for (const [index, use] of ['retrieve', 'continue', 'reference'].entries()) {
        const id = `resp_completing${index}`;
        const { completed, completion } = await reservedLike(like, id, 300);
        const started = Date.now();
        if (use === 'retrieve') expect(await owner.responses.retrieve(id)).toMatchObject({ id, status: 'completed', output: completed.output });
        if (use === 'continue') {
          await owner.responses.create({ model: 'claude', previous_response_id: id, input: 'after the completion' });
          expect((await lastRequestWith(fake, 'after the completion')).json['messages']).toEqual([
            { role: 'user', content: [{ type: 'text', text: 'answered elsewhere' }] },
            { role: 'assistant', content: [{ type: 'text', text: 'fake answer from claude-sonnet-4-5' }] },
            { role: 'user', content: [{ type: 'text', text: 'after the completion' }] },
          ]);
        }
        if (use === 'reference') {
          await owner.responses.create({
            model: 'claude',
            input: [
              { type: 'item_reference', id: completed.output[0]?.id ?? '' },
              { role: 'user', content: 'after a reference to it' },
            ],
          });
          expect((await lastRequestWith(fake, 'after a reference to it')).json['messages']).toEqual([
            { role: 'assistant', content: [{ type: 'text', text: 'fake answer from claude-sonnet-4-5' }] },
            { role: 'user', content: [{ type: 'text', text: 'after a reference to it' }] },
          ]);
        }
        // It waited for the completion rather than answering 404 or an empty response.
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        await completion;
      }
    });

    it('is read as in progress, and not continued, when its completion does not come', async () => {
      const owner = sdkClient(second, await keyOf('completing'));
      const like = await owner.responses.create({ model: 'claude', input: 'never completed' });
      await reservedLike(like, 'resp_never_completed');
      const [retrieved, continued] = await Promise.all([
        owner.responses.retrieve('resp_never_completed'),
        refusal(owner.responses.create({ model: 'claude', previous_response_id: 'resp_never_completed', input: 'x' })),
      ]);
      expect(retrieved).toMatchObject({ id: 'resp_never_completed', status: 'in_progress', output: [] });
      expect(continued).toBeInstanceOf(BadRequestError);
      expect(continued).toMatchObject({ code: 'response_in_progress', param: 'previous_response_id' });
    }, 20_000);
  });

  it("answers 404 to another project's key, for reading, deleting and continuing a response", async () => {
    const owner = new OpenAI({ apiKey: await keyOf('stored-owner'), baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const strangerKey = await keyOf('stored-stranger');
    const created = await owner.responses.create({ model: 'claude', input: 'owned' });
    expect((await owner.responses.retrieve(created.id)).id).toBe(created.id);
    // On this gateway (built from the sources under test) and on the second process alike.
    for (const url of [gateway.url, second.url]) {
      const stranger = new OpenAI({ apiKey: strangerKey, baseURL: `${url}/v1`, maxRetries: 0 });
      expect(await refusal(stranger.responses.retrieve(created.id))).toBeInstanceOf(NotFoundError);
      expect(await refusal(stranger.responses.delete(created.id))).toBeInstanceOf(NotFoundError);
      expect(await refusal(stranger.responses.create({ model: 'claude', input: 'x', previous_response_id: created.id }))).toBeInstanceOf(NotFoundError);
      expect(await refusal(stranger.responses.inputItems.list(created.id))).toBeInstanceOf(NotFoundError);
    }
    expect((await owner.responses.retrieve(created.id)).id).toBe(created.id);
  });

  it("resolves item references to the caller's stored items, and answers 404 for any other", async () => {
    const owner = new OpenAI({ apiKey: await keyOf('items-owner'), baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const first = await owner.responses.create({ model: 'claude', input: 'referenced question' });
    const answer = first.output.find((item) => item.type === 'message');
    await owner.responses.create({
      model: 'claude',
      input: [
        { type: 'item_reference', id: answer?.id ?? '' },
        { role: 'user', content: 'after a reference' },
      ],
    });
    const seen = await lastRequestWith(fake, 'after a reference');
    expect(seen.json['messages']).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'fake answer from claude-sonnet-4-5' }] },
      { role: 'user', content: [{ type: 'text', text: 'after a reference' }] },
    ]);
    const stranger = new OpenAI({ apiKey: await keyOf('items-stranger'), baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    expect(await refusal(stranger.responses.create({ model: 'claude', input: [{ type: 'item_reference', id: answer?.id ?? '' }] }))).toBeInstanceOf(NotFoundError);
    expect(await refusal(owner.responses.create({ model: 'claude', input: [{ type: 'item_reference', id: 'msg_nothing' }] }))).toBeInstanceOf(NotFoundError);
  });

  it('lists input items newest first and pages them as OpenAI does', async () => {
    const created = await client.responses.create({
      model: 'claude',
      input: [
        { role: 'user', content: 'items one' },
        { role: 'assistant', content: 'items two' },
        { role: 'user', content: 'items three' },
      ],
    });
    const all = await client.responses.inputItems.list(created.id);
    expect(
      all.data.map((item) =>
        item.type === 'message' && item.content[0]?.type === 'input_text' ? item.content[0].text : item.type === 'message' ? (item.content[0] as { text: string }).text : '',
      ),
    ).toEqual(['items three', 'items two', 'items one']);
    const firstPage = await client.responses.inputItems.list(created.id, { limit: 2, order: 'asc' });
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.hasNextPage()).toBe(true);
    const secondPage = await firstPage.getNextPage();
    expect(secondPage.data).toHaveLength(1);
    expect(secondPage.data[0]?.id).toBe(all.data[0]?.id);
    expect(secondPage.hasNextPage()).toBe(false);
    expect(await refusal(client.responses.inputItems.list(created.id, { limit: 1000 }))).toBeInstanceOf(BadRequestError);
  });

  it('answers a background response at once as queued, and completes it for any instance to read, natively served or bridged', async () => {
    for (const [model, answer] of [
      ['claude', 'fake answer from claude-sonnet-4-5'],
      ['gpt', 'fake answer from gpt-4o-mini'],
    ]) {
      const queued = await client.responses.create({ model, input: `background work ${model}`, background: true });
      expect(queued).toMatchObject({ status: 'queued', background: true });
      const done = await eventually(
        () => sdkClient(second).responses.retrieve(queued.id),
        (response) => response.status === 'completed',
      );
      expect(done).toMatchObject({ id: queued.id, status: 'completed', background: true });
      expect(done.output_text).toBe(answer);
      // The gateway runs it: the upstream is asked for a plain answer.
      expect((await lastRequestWith(fake, `background work ${model}`)).json).not.toHaveProperty('background', true);
    }
  });

  it('streams a background response to its creator, and again from its log on any instance after a given event, natively served or bridged', async () => {
    for (const [model, answer] of [
      ['claude', 'fake answer from claude-sonnet-4-5'],
      ['gpt', 'fake answer from gpt-4o-mini'],
    ]) {
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of await client.responses.create({ model, input: `background stream ${model}`, background: true, stream: true })) events.push(event);
      const first = events[0] as OpenAI.Responses.ResponseCreatedEvent;
      expect(first.type).toBe('response.created');
      expect(first.response).toMatchObject({ background: true });
      expect(events.at(-1)?.type).toBe('response.completed');
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
      const id = first.response.id;
      expect(events.filter((event) => 'response' in event).every((event) => (event as { response: { id: string } }).response.id === id)).toBe(true);

      const again: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const event of await sdkClient(second).responses.retrieve(id, { stream: true, starting_after: 2 })) again.push(event);
      expect(again).toEqual(events.slice(3));
      expect((await sdkClient(second).responses.retrieve(id)).output_text).toBe(answer);
    }
  });

  it('runs a streamed background response on when its creator leaves, whose stream another instance resumes where it left off', async () => {
    const seen: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: 'claude-held', input: 'background stream resumed', background: true, stream: true })) {
      seen.push(event);
      if (event.type === 'response.output_text.delta') break; // the creator leaves mid-answer
    }
    const id = (seen[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    await fetch(`${fake.url}/_fake/release/background-stream`, { method: 'POST' });
    const rest: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await sdkClient(second).responses.retrieve(id, { stream: true, starting_after: seen.at(-1)?.sequence_number ?? 0 })) rest.push(event);
    const text = [...seen, ...rest].flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(text).toBe('fake answer from hold-background-stream');
    expect(rest.at(-1)).toMatchObject({ type: 'response.completed', response: { id, status: 'completed' } });
    expect(rest[0]?.sequence_number).toBe((seen.at(-1)?.sequence_number ?? 0) + 1);

    const plain = await client.responses.create({ model: 'claude', input: 'not background, not streamed again' });
    expect(
      await refusal(
        client.responses.retrieve(plain.id, { stream: true }).then(async (stream) => {
          for await (const _ of stream);
        }),
      ),
    ).toBeInstanceOf(BadRequestError);
  });

  it('cancels a running background response from another instance, which stops the upstream call', async () => {
    const queued = await client.responses.create({ model: 'claude-silent', input: 'background cancelled', background: true });
    await eventually(
      () => fake.requests(),
      (seen) => seen.some((request) => request.body.includes('background cancelled')),
    );
    const cancelled = await sdkClient(second).responses.cancel(queued.id);
    expect(cancelled.status).toBe('cancelled');
    const upstream = await eventually(
      () => lastRequestWith(fake, 'background cancelled'),
      (seen) => seen.aborted,
    );
    expect(upstream.aborted).toBe(true);
    expect((await client.responses.retrieve(queued.id)).status).toBe('cancelled');
    const plain = await client.responses.create({ model: 'claude', input: 'not background' });
    expect(await refusal(client.responses.cancel(plain.id))).toBeInstanceOf(BadRequestError);
  });

  describe('compaction and token counts', () => {
    it('compacts natively on an OpenAI alias, passing the encrypted compaction item through', async () => {
      const compacted = await client.responses.compact({ model: 'gpt', input: [{ role: 'user', content: 'compact natively' }] });
      expect(compacted.object).toBe('response.compaction');
      expect(compacted.output.at(-1)).toMatchObject({ type: 'compaction', encrypted_content: 'fake-encrypted:1' });
      expect((await lastRequestWith(fake, 'compact natively')).path).toBe('/v1/responses/compact');
    });

    it('compacts a stored conversation on a Claude alias through chat, and reads its own compaction item back in the next turn', async () => {
      const first = await client.responses.create({ model: 'claude', input: 'compact this conversation' });
      const compacted = await sdkClient(second).responses.compact({ model: 'claude', previous_response_id: first.id, input: 'and this' });
      const summarised = await lastRequestWith(fake, 'and this');
      const messages = summarised.json['messages'] as { role: string; content: { text: string }[] }[];
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(
        messages
          .at(-1)
          ?.content.map((part) => part.text)
          .join('\n'),
      ).toMatch(/^and this\n+Summarize the conversation so far/);
      expect(compacted.output.map((item) => item.type)).toEqual(['message', 'message', 'compaction']);
      expect(compacted.usage).toMatchObject({ input_tokens: 7, output_tokens: 5 });

      await client.responses.create({ model: 'claude', input: [...(compacted.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'after compaction' }] });
      const continued = await lastRequestWith(fake, 'after compaction');
      const texts = (continued.json['messages'] as { content: { text: string }[] }[]).flatMap((message) => message.content.map((part) => part.text));
      expect(texts).toEqual(['compact this conversation', 'and this', 'Summary of the conversation so far:\n\nfake answer from claude-sonnet-4-5', 'after compaction']);
    });

    it("refuses another provider's compaction item on a bridged alias, naming it", async () => {
      const compacted = await client.responses.compact({ model: 'gpt', input: 'openai compaction' });
      const refused = await refusal(client.responses.create({ model: 'claude', input: compacted.output as OpenAI.Responses.ResponseInputItem[] }));
      expect(refused).toBeInstanceOf(BadRequestError);
      expect((refused as BadRequestError).message).toMatch(
        /a compaction item made by another provider is served only by models with a native Responses API, and anthropic has none/,
      );
    });

    it('counts input tokens with the provider where it counts, else locally, saying which', async () => {
      const { data: counted, response } = await client.responses.inputTokens.count({ model: 'gpt', input: 'count these four words' }).withResponse();
      expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: 4 });
      expect(response.headers.get('x-arbor-token-count')).toBe('provider');
      const { data: estimated, response: local } = await client.responses.inputTokens
        .count({ model: 'claude', instructions: 'Be brief.', input: 'count these four words' })
        .withResponse();
      expect(estimated.object).toBe('response.input_tokens');
      expect(estimated.input_tokens).toBeGreaterThan(5);
      expect(local.headers.get('x-arbor-token-count')).toBe('estimate; encoding=o200k_base');
    });
  });

  describe('WebSocket mode', () => {
    /** The text of a response's messages (what the SDK's HTTP calls add as output_text). */
    const textOf = (response: OpenAI.Responses.Response): string =>
      response.output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => (part.type === 'output_text' ? part.text : '')) : [])).join('');

    /** The next turn's end on the socket: its completed response, or the error event's message. */
    const nextTurn = (socket: ResponsesWS, types: string[] = []): Promise<OpenAI.Responses.Response> =>
      new Promise((resolve, reject) => {
        const onEvent = (event: OpenAI.Responses.ResponsesServerEvent) => {
          types.push(event.type);
          if (event.type === 'response.completed') done(() => resolve(event.response));
        };
        const onError = (error: Error) => done(() => reject(error));
        const done = (settle: () => void) => {
          socket.off('event', onEvent);
          socket.off('error', onError);
          settle();
        };
        socket.on('event', onEvent);
        socket.on('error', onError);
      });

    it('serves two turns on one socket through the official SDK, the second continuing the first, and records the spend of both', async () => {
      const key = (
        await request(gateway.url)
          .post('/api/v1/keys')
          .set({ authorization: `Bearer ${MASTER_KEY}` })
          .send({ project: 'socket-spend' })
          .expect(201)
      ).body as { id: string; key: string };
      const socket = new ResponsesWS(new OpenAI({ apiKey: key.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }));
      try {
        const types: string[] = [];
        const firstTurn = nextTurn(socket, types);
        socket.send({ type: 'response.create', model: 'claude', input: 'socket turn one', store: false });
        const first = await firstTurn;
        expect(textOf(first)).toBe('fake answer from claude-sonnet-4-5');
        expect(types).toEqual(expect.arrayContaining(['response.created', 'response.output_text.delta', 'response.output_item.done', 'response.completed']));
        // Not stored, yet the connection remembers it for its next turn.
        expect(await refusal(client.responses.retrieve(first.id))).toBeInstanceOf(NotFoundError);
        const secondTurn = nextTurn(socket);
        socket.send({ type: 'response.create', model: 'gpt', previous_response_id: first.id, input: 'socket turn two' });
        const second = await secondTurn;
        expect(textOf(second)).toBe('fake answer from gpt-4o-mini');
        const seen = await lastRequestWith(fake, 'socket turn two');
        expect(seen.json['input']).toEqual([
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'socket turn one' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'fake answer from claude-sonnet-4-5' }] },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'socket turn two' }] },
        ]);
        const report = await eventually(
          async () =>
            (
              await request(gateway.url)
                .get(`/api/v1/keys/${key.id}/spend`)
                .set({ authorization: `Bearer ${MASTER_KEY}` })
                .expect(200)
            ).body as { totals: Record<string, number> },
          (body) => body.totals['requests'] === 2,
        );
        expect(report.totals).toMatchObject({ requests: 2, prompt_tokens: 14, completion_tokens: 10 });
      } finally {
        socket.close();
      }
    });

    it('answers a bad turn with an error event and keeps the connection for the next one', async () => {
      const socket = new ResponsesWS(client);
      try {
        const refused = nextTurn(socket);
        socket.send({ type: 'response.create', model: 'nope', input: 'x' });
        await expect(refused).rejects.toThrow(/The model "nope" does not exist/);
        const next = nextTurn(socket);
        socket.send({ type: 'response.create', model: 'claude', input: 'after a refusal' });
        expect(textOf(await next)).toBe('fake answer from claude-sonnet-4-5');
      } finally {
        socket.close();
      }
    });

    it('refuses the upgrade to a bad key with 401', async () => {
      const socket = new WebSocket(`${gateway.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: 'Bearer sk-arbor-not-a-key' } });
      const refused = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
        socket.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode, body }));
        });
        socket.on('open', () => reject(new Error('the upgrade was accepted')));
        socket.on('error', () => undefined);
      });
      expect(refused.status).toBe(401);
      expect((JSON.parse(refused.body) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    });
  });
});
