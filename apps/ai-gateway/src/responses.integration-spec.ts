// OpenAI's Responses API as its clients meet it: the official OpenAI SDK's `responses.create` and
// `responses.stream` against the gateway, the gateway against tools/fake-providers: natively on
// OpenAI(-compatible) aliases, bridged through chat completions on Anthropic and Gemini aliases.
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import request from 'supertest';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, MASTER_KEY, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, base: string, extra = '') => `
  - model_name: ${alias}
    litellm_params: { model: ${model}, api_base: ${base}, api_key: sk-upstream }${extra}`;

const refusal = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error('the call succeeded'),
    (error: unknown) => error,
  );

describe('the Responses API through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;
  const asMaster = { authorization: `Bearer ${MASTER_KEY}` };

  beforeAll(async () => {
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) => `model_list:${[
        deployment('gpt', 'openai/gpt-4o-mini', `${fakeUrl}/v1`, '\n    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }'),
        deployment('gpt-midstream', 'openai/fail-midstream', `${fakeUrl}/v1`),
        deployment('claude', 'anthropic/claude-sonnet-4-5', `${fakeUrl}/anthropic`, '\n    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }'),
        deployment('gemini', 'gemini/gemini-2.5-flash', `${fakeUrl}/gemini`),
        deployment('azure-gpt', 'azure/my-gpt-deployment', `${fakeUrl}/azure`),
        deployment('gpt-chat-only', 'openai/gpt-4o-mini', `${fakeUrl}/v1`, '\n    model_info: { supported_endpoints: [/v1/chat/completions] }'),
        deployment('gemini-midstream', 'gemini/fail-midstream', `${fakeUrl}/gemini`),
        deployment('claude-small', 'anthropic/window-60', `${fakeUrl}/anthropic`),
        deployment('mistral', 'mistral/mistral-small-latest', `${fakeUrl}/v1`),
      ].join('')}
`,
    ));
  }, 60_000);

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it('answers a plain call on an OpenAI alias with the provider model, priced from its usage', async () => {
    const { data, response } = await client.responses.create({ model: 'gpt', instructions: 'Be brief.', input: 'responses plain', metadata: { team: 'search' } }).withResponse();
    expect(data.output_text).toBe('fake answer from gpt-4o-mini');
    expect(data.usage).toMatchObject({ input_tokens: 7, output_tokens: 5 });
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 0.001 + 5 * 0.002, 10);
    expect(response.headers.get('x-arbor-model-group')).toBe('gpt');
    const seen = await lastRequestWith(fake, 'responses plain');
    expect(seen.path).toBe('/v1/responses');
    expect(seen.json).toMatchObject({ model: 'gpt-4o-mini', instructions: 'Be brief.', input: 'responses plain', metadata: { team: 'search' } });
  });

  it('streams every event of the response on, and the stream helper assembles what the plain call answers', async () => {
    const stream = client.responses.stream({ model: 'gpt', input: 'responses streamed' });
    const types: string[] = [];
    const ids = new Set<string>();
    stream.on('event', (event) => {
      types.push(event.type);
      if ('response' in event) ids.add(event.response.id);
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('fake answer from gpt-4o-mini');
    // Every event names the response by the gateway's id, under which it is stored, not the upstream's.
    expect([...ids]).toEqual([final.id]);
    expect(final.id).not.toMatch(/^resp_fake/);
    expect((await client.responses.retrieve(final.id)).output_text).toBe(final.output_text);
    expect(types[0]).toBe('response.created');
    expect(types).toEqual(
      expect.arrayContaining(['response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.output_item.done']),
    );
    expect(types.at(-1)).toBe('response.completed');
  });

  it("records a key's spend for plain and streamed calls, from the usage of the response and of the stream's last event", async () => {
    const created = (await request(gateway.url).post('/api/v1/keys').set(asMaster).send({ project: 'responses-spend' }).expect(201)).body as { id: string; key: string };
    const own = new OpenAI({ apiKey: created.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await own.responses.create({ model: 'gpt', input: 'spend plain' });
    await own.responses.stream({ model: 'gpt', input: 'spend streamed' }).finalResponse();
    let report: { totals: Record<string, number> } | undefined;
    for (let tries = 0; tries < 100 && (report?.totals['requests'] ?? 0) < 2; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      report = (await request(gateway.url).get(`/api/v1/keys/${created.id}/spend`).set(asMaster).expect(200)).body as typeof report;
    }
    expect(report?.totals).toMatchObject({ requests: 2, estimated_requests: 0, prompt_tokens: 14, completion_tokens: 10 });
    expect(report?.totals['cost_usd']).toBeCloseTo(2 * (7 * 0.001 + 5 * 0.002), 10);
  });

  it("passes a call on an Azure alias through to Azure's v1 Responses API with the deployment as model", async () => {
    const answer = await client.responses.create({ model: 'azure-gpt', input: 'azure responses' });
    expect(answer.output_text).toBe('fake answer from my-gpt-deployment');
    const seen = await lastRequestWith(fake, 'azure responses');
    expect(seen.path).toBe('/azure/openai/v1/responses');
    expect(seen.headers['api-key']).toBe('sk-upstream');
    expect(seen.json['model']).toBe('my-gpt-deployment');
  });

  it('ends a stream the upstream failed mid-way with its error event, which the SDK raises, and keeps nothing of it', async () => {
    const stream = client.responses.stream({ model: 'gpt-midstream', input: 'broken' });
    let announced = '';
    stream.on('response.created', (event) => (announced = event.response.id));
    await expect(stream.finalResponse()).rejects.toThrow(/fake: the server had an error/);
    expect(await refusal(client.responses.retrieve(announced))).toBeInstanceOf(NotFoundError);
  });

  it('answers in OpenAI’s error classes: a bad key, an unknown alias', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-arbor-not-a-key', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    expect(await refusal(stranger.responses.create({ model: 'gpt', input: 'x' }))).toBeInstanceOf(AuthenticationError);
    expect(await refusal(client.responses.create({ model: 'nope', input: 'x' }))).toBeInstanceOf(NotFoundError);
  });

  describe('bridged through chat completions', () => {
    it('answers a plain call on a Claude alias: instructions as the system prompt, the answer as a message item, usage and cost in the Responses fields', async () => {
      const { data, response } = await client.responses
        .create({ model: 'claude', instructions: 'Be brief.', input: [{ role: 'user', content: [{ type: 'input_text', text: 'bridged plain' }] }], max_output_tokens: 300 })
        .withResponse();
      expect(data.output_text).toBe('fake answer from claude-sonnet-4-5');
      expect(data).toMatchObject({ object: 'response', status: 'completed', model: 'claude', instructions: 'Be brief.', max_output_tokens: 300 });
      expect(data.id).toMatch(/^resp_/);
      expect(data.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
      expect(data.usage).toMatchObject({ input_tokens: 7, output_tokens: 5, total_tokens: 12 });
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 0.001 + 5 * 0.002, 10);
      const seen = await lastRequestWith(fake, 'bridged plain');
      expect(seen.path).toBe('/anthropic/v1/messages');
      expect(seen.json).toMatchObject({
        system: [{ type: 'text', text: 'Be brief.' }],
        max_tokens: 300,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'bridged plain' }] }],
      });
    });

    it('streams the whole event grammar, numbered, and the SDK assembles the same answer', async () => {
      const stream = client.responses.stream({ model: 'claude', input: 'bridged streamed' });
      const events: { type: string; sequence_number: number }[] = [];
      stream.on('event', (event) => events.push(event));
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('fake answer from claude-sonnet-4-5');
      expect(final.usage).toMatchObject({ input_tokens: 7, output_tokens: 5 });
      expect(events.map((event) => event.type)).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...events.filter((event) => event.type === 'response.output_text.delta').map(() => 'response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(events.filter((event) => event.type === 'response.output_text.delta').length).toBeGreaterThan(1);
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    });

    it('runs a tool loop: the function call comes back as a function_call item, its output goes back as a tool result', async () => {
      const tools = [
        { type: 'function' as const, name: 'lookup', description: 'Looks a thing up', parameters: { type: 'object', properties: { argument: { type: 'string' } } }, strict: false },
      ];
      const first = await client.responses.create({ model: 'claude', input: 'bridged tools', tools, tool_choice: 'required' });
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ type: 'function_call', name: 'lookup', arguments: JSON.stringify({ argument: 'fake' }) });
      if (call?.type !== 'function_call') throw new Error('no function call');
      const second = await client.responses.create({
        model: 'claude',
        tools,
        input: [{ role: 'user', content: 'bridged tools' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'found it' }],
      });
      expect(second.output_text).toBe('fake answer from claude-sonnet-4-5');
      const seen = await lastRequestWith(fake, 'found it');
      expect(seen.json['messages']).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'bridged tools' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: call.call_id, name: 'lookup', input: { argument: 'fake' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.call_id, content: 'found it' }] },
      ]);
    });

    it("answers a call of a namespace's tool with its namespace, and a custom tool's call as a custom_tool_call, plain and streamed", async () => {
      const namespaced = await client.responses.create({
        model: 'claude',
        input: 'bridged namespace',
        tools: [{ type: 'namespace', name: 'crm', description: 'The CRM', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }] }],
      });
      const call = namespaced.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ type: 'function_call', name: 'lookup', namespace: 'crm' });
      if (call?.type !== 'function_call') throw new Error('no function call');
      await client.responses.create({
        model: 'claude',
        input: [{ role: 'user', content: 'bridged namespace' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'namespace result' }],
        tools: [{ type: 'namespace', name: 'crm', description: 'The CRM', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }] }],
      });
      expect(JSON.stringify((await lastRequestWith(fake, 'namespace result')).json['messages'])).toContain('"name":"crm__lookup"');

      const custom = [{ type: 'custom' as const, name: 'apply_patch', description: 'Applies a patch' }];
      const plain = await client.responses.create({ model: 'claude', input: 'bridged custom', tools: custom });
      expect(plain.output.find((item) => item.type === 'custom_tool_call')).toMatchObject({
        type: 'custom_tool_call',
        name: 'apply_patch',
        // Called freely (auto), the fake writes its placeholder input, which the custom tool call carries as its text.
        input: JSON.stringify({ argument: 'fake' }),
      });
      const stream = client.responses.stream({ model: 'claude', input: 'bridged custom streamed', tools: custom });
      const types: string[] = [];
      stream.on('event', (event) => types.push(event.type));
      const final = await stream.finalResponse();
      expect(final.output.at(-1)).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', status: 'completed' });
      expect(types).toEqual(expect.arrayContaining(['response.custom_tool_call_input.delta', 'response.custom_tool_call_input.done']));
    });

    it('streams a function call as its argument deltas', async () => {
      const stream = client.responses.stream({
        model: 'claude',
        input: 'bridged streamed tools',
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: false }],
      });
      const types: string[] = [];
      stream.on('event', (event) => types.push(event.type));
      const final = await stream.finalResponse();
      expect(final.output.at(-1)).toMatchObject({ type: 'function_call', name: 'lookup', arguments: JSON.stringify({ argument: 'fake' }), status: 'completed' });
      expect(types).toEqual(expect.arrayContaining(['response.function_call_arguments.delta', 'response.function_call_arguments.done']));
    });

    it('returns JSON-schema output from a Gemini alias, whose structured output the schema reaches', async () => {
      const schema = { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } }, required: ['city', 'population'], additionalProperties: false };
      const answer = await client.responses.create({ model: 'gemini', input: 'bridged schema', text: { format: { type: 'json_schema', name: 'city', schema, strict: true } } });
      expect(JSON.parse(answer.output_text)).toEqual({ city: 'fake', population: 1 });
      const seen = await lastRequestWith(fake, 'bridged schema');
      expect(seen.json['generationConfig']).toMatchObject({ responseMimeType: 'application/json', responseJsonSchema: schema });
    });

    it("gives a Gemini alias's thoughts back as a reasoning item, plain and streamed", async () => {
      const plain = await client.responses.create({ model: 'gemini', input: 'bridged reasoning', reasoning: { effort: 'low', summary: 'auto' } });
      expect(plain.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'The user wants a fake answer.' }] });
      const stream = client.responses.stream({ model: 'gemini', input: 'bridged reasoning streamed', reasoning: { effort: 'low' } });
      const deltas: string[] = [];
      stream.on('response.reasoning_summary_text.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      expect(deltas.join('')).toBe('The user wants a fake answer.');
      expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    });

    it('bridges an OpenAI-compatible server whose model_info.supported_endpoints lacks /v1/responses', async () => {
      const answer = await client.responses.create({ model: 'gpt-chat-only', input: 'chat only server' });
      expect(answer.output_text).toBe('fake answer from gpt-4o-mini');
      expect((await lastRequestWith(fake, 'chat only server')).path).toBe('/v1/chat/completions');
    });

    it("searches the web with Anthropic's web search server tool for the web_search tool, its searches as web_search_call items and its citations as annotations", async () => {
      const answer = await client.responses.create({
        model: 'claude',
        input: 'arbor release news',
        tools: [{ type: 'web_search', search_context_size: 'low', filters: { allowed_domains: ['news.example.org'] } }],
      });
      expect(answer.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
      expect(answer.output[0]).toMatchObject({
        type: 'web_search_call',
        status: 'completed',
        action: {
          type: 'search',
          query: 'arbor release news',
          sources: [
            { type: 'url', url: 'https://news.example.org/fake-result-1' },
            { type: 'url', url: 'https://news.example.org/fake-result-2' },
          ],
        },
      });
      expect(answer.output_text).toBe('According to the search: fake answer from claude-sonnet-4-5');
      const text = (answer.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
      expect(text.annotations).toEqual([{ type: 'url_citation', url: 'https://news.example.org/fake-result-1', title: 'Fake result 1', start_index: 25, end_index: 59 }]);
      expect(answer.output_text.slice(25, 59)).toBe('fake answer from claude-sonnet-4-5');
      expect((await lastRequestWith(fake, 'arbor release news')).json['tools']).toEqual([
        { type: 'web_search_20250305', name: 'web_search', max_uses: 1, allowed_domains: ['news.example.org'] },
      ]);

      // Streamed, as Codex CLI asks: the search's events, then the text and its citation.
      const stream = client.responses.stream({ model: 'claude', input: 'arbor streamed news', tools: [{ type: 'web_search' }] });
      const types: string[] = [];
      stream.on('event', (event) => types.push(event.type));
      const final = await stream.finalResponse();
      expect(final.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
      expect(final.output[0]).toMatchObject({ status: 'completed', action: { query: 'arbor streamed news' } });
      expect(final.output_text).toBe('According to the search: fake answer from claude-sonnet-4-5');
      expect(((final.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText).annotations).toEqual([
        { type: 'url_citation', url: 'https://example.com/fake-result-1', title: 'Fake result 1', start_index: 25, end_index: 59 },
      ]);
      expect(types).toEqual(
        expect.arrayContaining([
          'response.web_search_call.in_progress',
          'response.web_search_call.searching',
          'response.web_search_call.completed',
          'response.output_text.annotation.added',
        ]),
      );
      expect(types.indexOf('response.web_search_call.completed')).toBeLessThan(types.indexOf('response.output_text.delta'));

      // The next turn sends the search back, as Codex does: it stays with the provider that ran it.
      const next = await client.responses.create({ model: 'claude', input: [...(final.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'thanks' }] });
      expect(next.output_text).toBe('fake answer from claude-sonnet-4-5');
    });

    it('searches the web with Google Search grounding on Gemini for the web_search tool', async () => {
      const answer = await client.responses.create({ model: 'gemini', input: 'gemini grounded news', tools: [{ type: 'web_search_preview' }] });
      expect((await lastRequestWith(fake, 'gemini grounded news')).json['tools']).toEqual([{ googleSearch: {} }]);
      expect(answer.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
      expect(answer.output[0]).toMatchObject({
        action: { query: 'gemini grounded news', sources: [{ url: expect.stringContaining('fake-1') }, { url: expect.stringContaining('fake-2') }] },
      });
      const text = (answer.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
      expect(text.annotations).toEqual([
        { type: 'url_citation', url: expect.stringContaining('fake-1'), title: 'fake-result-1.example.com', start_index: 0, end_index: text.text.length },
      ]);

      const final = await client.responses.stream({ model: 'gemini', input: 'gemini streamed grounding', tools: [{ type: 'web_search' }] }).finalResponse();
      expect(final.output.map((item) => item.type)).toEqual(['message', 'web_search_call']);
      expect(((final.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText).annotations).toHaveLength(1);
    });

    it('refuses the web search tool where the provider has no search, naming it, and drops it under drop_params saying so in x-arbor-dropped-params', async () => {
      const refused = await refusal(client.responses.create({ model: 'mistral', input: 'x', tools: [{ type: 'web_search' }] }));
      expect(refused).toBeInstanceOf(BadRequestError);
      expect((refused as BadRequestError).message).toMatch(
        /tools\.0: the web_search tool is served only by models with a native Responses API or a web search of their own \(Anthropic's, Gemini's\), and mistral has neither/,
      );
      const { data, response } = await client.responses
        .create({
          model: 'mistral',
          input: 'bridged dropped',
          tools: [{ type: 'web_search' }],
          drop_params: true,
        } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
        .withResponse();
      expect(data.output_text).toBe('fake answer from mistral-small-latest');
      expect(response.headers.get('x-arbor-dropped-params')).toBe('tools.0 (web_search)');
      expect((await lastRequestWith(fake, 'bridged dropped')).json['tools']).toBeUndefined();
      // Nothing dropped, no header.
      const { response: whole } = await client.responses.create({ model: 'mistral', input: 'nothing dropped' }).withResponse();
      expect(whole.headers.get('x-arbor-dropped-params')).toBeNull();
    });

    it('truncates a conversation too long for a bridged model from its beginning under truncation: auto, and refuses it without', async () => {
      const turn = (role: 'user' | 'assistant', words: number, tag: string) => ({ role, content: `${tag} ${'word '.repeat(words)}` });
      const input = [turn('user', 30, 'oldest'), turn('assistant', 30, 'reply'), turn('user', 10, 'middle'), turn('assistant', 10, 'second'), turn('user', 5, 'truncated latest')];
      const refused = await refusal(client.responses.create({ model: 'claude-small', input }));
      expect(refused).toBeInstanceOf(BadRequestError);
      expect((refused as BadRequestError).message).toMatch(/prompt is too long: \d+ tokens > 60 maximum/);

      const answer = await client.responses.create({ model: 'claude-small', input, truncation: 'auto' });
      expect(answer).toMatchObject({ status: 'completed', truncation: 'auto' });
      const seen = (await lastRequestWith(fake, 'truncated latest')).json['messages'] as { role: string; content: { text: string }[] }[];
      // The oldest turns went, the rest kept in order, starting at one of the user's messages.
      expect(seen.map((message) => message.content[0]?.text.split(' ')[0])).toEqual(['middle', 'second', 'truncated']);
    });

    it('ends a bridged stream the upstream failed mid-way with response.failed and an error event, numbered on, which the SDK raises', async () => {
      const stream = client.responses.stream({ model: 'gemini-midstream', input: 'broken' });
      await expect(stream.finalResponse()).rejects.toThrow(/fake: The model is overloaded/);
      const raw = await fetch(`${gateway.url}/v1/responses`, {
        method: 'POST',
        headers: { ...asMaster, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gemini-midstream', input: 'broken', stream: true }),
      });
      const events = (await raw.text())
        .split('\n\n')
        .filter((event) => event.startsWith('event: '))
        .map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { type: string; sequence_number: number; response?: { id: string; status: string } });
      expect(events.slice(-2).map((event) => event.type)).toEqual(['response.failed', 'error']);
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
      expect(events.at(-2)?.response).toMatchObject({ id: (events[0] as { response: { id: string } }).response.id, status: 'failed' });
    });
  });
});
