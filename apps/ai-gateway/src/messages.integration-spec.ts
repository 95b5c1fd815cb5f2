// The Anthropic Messages API (Anthropic-format) on every alias, as Anthropic-API clients meet it: the
// official Anthropic SDK against the gateway, the gateway against tools/fake-providers. Aliases
// served by Anthropic pass messages through; OpenAI, Gemini and Azure aliases are bridged through
// chat completions.
import Anthropic, {
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ContentTooLargeError,
  InternalServerError,
  NotFoundError,
  OverloadedError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, MASTER_KEY, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const deployment = (alias: string, model: string, base: string, extra = '') => `
  - model_name: ${alias}
    litellm_params:
      model: ${model}
      api_base: ${base}
      api_key: os.environ/AIGW_TEST_UPSTREAM_KEY${extra}`;

const weatherTool: Anthropic.Tool = { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
// The smallest PNG and a one-page PDF, base64.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF').toString('base64');

/** The error an SDK call rejected with (the call must fail). */
const refusal = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => new Error('the call succeeded'),
    (error: unknown) => error,
  );

describe('the Anthropic Messages API through the official Anthropic SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let anthropic: Anthropic;
  const sdk = (apiKey: string) => new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });
  const asMaster = { authorization: `Bearer ${MASTER_KEY}` };

  beforeAll(async () => {
    process.env['AIGW_TEST_UPSTREAM_KEY'] = 'sk-upstream-secret';
    ({ fake, database, gateway } = await startGatewayOnFakes((fakeUrl) => {
      const claude = (alias: string, model: string, extra = '') => deployment(alias, `anthropic/${model}`, `${fakeUrl}/anthropic`, extra);
      return `model_list:${[
        claude('claude', 'claude-sonnet-4-5'),
        // Priced as the built-in claude-sonnet-4-5; the fake reports 1000 cache writes and 2000 cache reads.
        claude('claude-cached', 'tokens-100-20-cache-1000-2000', '\n    model_info: { base_model: claude-sonnet-4-5 }'),
        claude('claude-400', 'fail-400'),
        claude('claude-401', 'fail-401'),
        claude('claude-403', 'fail-403'),
        claude('claude-404', 'fail-404'),
        claude('claude-413', 'fail-413'),
        claude('claude-429', 'fail-429'),
        claude('claude-500', 'fail-500'),
        claude('claude-overloaded', 'fail-529'),
        claude('claude-midstream', 'fail-midstream'),
        claude('claude-down', 'fail-529'),
        // Holds its stream after the first text delta, never released: only a hang-up ends it.
        claude('claude-held', 'hold-messages-never-released', '\n    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }'),
        deployment('gpt', 'openai/gpt-4o-mini', `${fakeUrl}/v1`),
        deployment('gpt-midstream', 'openai/fail-midstream', `${fakeUrl}/v1`),
        deployment('gpt-429', 'openai/fail-429', `${fakeUrl}/v1`),
        deployment('flash-500', 'gemini/fail-500', `${fakeUrl}/gemini`),
        deployment('flash', 'gemini/gemini-2.5-flash', `${fakeUrl}/gemini`),
        deployment('azure-gpt', 'azure/prod-gpt-4o', `${fakeUrl}/azure`, '\n      api_version: "2024-10-21"'),
      ].join('')}
router_settings:
  fallbacks: [{ claude-down: [gpt] }]
`;
    }));
    anthropic = sdk(MASTER_KEY);
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  describe('on an alias served by Anthropic (passed through)', () => {
    it('answers a plain call, sending the client request on with the provider model, its version and known betas only', async () => {
      const { data, response } = await anthropic.messages
        .create(
          { model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'native-plain' }], service_tier: 'auto', stop_sequences: ['never'] },
          { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31, made-up-beta-2099-01-01' } },
        )
        .withResponse();
      expect(data).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'fake answer from claude-sonnet-4-5' }], stop_reason: 'end_turn' });
      expect(data.usage).toMatchObject({ input_tokens: 7, output_tokens: 5 });
      expect(response.headers.get('x-arbor-model-id')).toBe('claude-0');
      expect(response.headers.get('x-arbor-attempted-fallbacks')).toBe('0');
      expect(response.headers.get('llm_provider-request-id')).toMatch(/^req_fake/);
      // 7 × $3/M + 5 × $15/M
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * 3e-6 + 5 * 15e-6, 12);

      const sent = await lastRequestWith(fake, 'native-plain');
      expect(sent.path).toBe('/anthropic/v1/messages');
      expect(sent.json).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'native-plain' }], stop_sequences: ['never'] });
      expect(sent.headers['x-api-key']).toBe('sk-upstream-secret');
      expect(sent.headers['anthropic-version']).toBe('2026-10-21');
      expect(sent.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    });

    it('takes the key as a bearer token too, and streams the same message the plain call answers', async () => {
      const bearer = new Anthropic({ authToken: MASTER_KEY, apiKey: null, baseURL: gateway.url, maxRetries: 0 });
      const params = { model: 'claude', max_tokens: 100, messages: [{ role: 'user' as const, content: 'native-stream' }] };
      const plain = await bearer.messages.create(params);
      const stream = bearer.messages.stream(params);
      const events: string[] = [];
      stream.on('streamEvent', (event) => events.push(event.type));
      const streamed = await stream.finalMessage();
      expect(events).toEqual(expect.arrayContaining(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']));
      expect(streamed.content).toEqual(plain.content);
      expect(streamed.stop_reason).toBe(plain.stop_reason);
      expect(streamed.usage).toMatchObject({ input_tokens: plain.usage.input_tokens, output_tokens: plain.usage.output_tokens });
      const sent = await lastRequestWith(fake, 'native-stream');
      expect(sent.json['stream']).toBe(true);
    });

    it('keeps thinking signed across a tool turn, streamed and plain', async () => {
      const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
      const first = await anthropic.messages
        .stream({ model: 'claude', max_tokens: 2048, thinking, tools: [weatherTool], messages: [{ role: 'user', content: 'thinking-turn' }] })
        .finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      expect(first.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^fakesig-/) });
      const toolUse = first.content.find((block) => block.type === 'tool_use');
      expect(toolUse).toMatchObject({ name: 'get_weather', input: { argument: 'fake' } });
      // The fake refuses the tool result unless the assistant turn starts with its thinking block, signature intact.
      const second = await anthropic.messages.create({
        model: 'claude',
        max_tokens: 2048,
        thinking,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'thinking-turn' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: (toolUse as Anthropic.ToolUseBlock).id, content: 'sunny' }] },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
      expect(second.content.at(-1)).toMatchObject({ type: 'text', text: 'fake answer from claude-sonnet-4-5' });
    });

    it('passes cache_control (one hour), images and PDF documents through, and prices cache writes and reads at their own rates', async () => {
      const { data, response } = await anthropic.messages
        .create({
          model: 'claude-cached',
          max_tokens: 100,
          system: [{ type: 'text', text: 'a long shared prompt', cache_control: { type: 'ephemeral', ttl: '1h' } }],
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'cache-image-pdf' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
                { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, cache_control: { type: 'ephemeral' } },
              ],
            },
          ],
        })
        .withResponse();
      expect(data.usage).toMatchObject({ input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 1000, cache_read_input_tokens: 2000 });
      const sent = await lastRequestWith(fake, 'cache-image-pdf');
      expect(sent.json['system']).toEqual([{ type: 'text', text: 'a long shared prompt', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
      expect((sent.json['messages'] as { content: unknown[] }[])[0]?.content).toEqual([
        { type: 'text', text: 'cache-image-pdf' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, cache_control: { type: 'ephemeral' } },
      ]);
      // claude-sonnet-4-5: input $3/M, one-hour cache writes $6/M, reads $0.30/M, output $15/M.
      const cost = 100 * 3e-6 + 1000 * 6e-6 + 2000 * 0.3e-6 + 20 * 15e-6;
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(cost, 12);
      // The same cost and tokens in the metrics, as for OpenAI-format calls (recorded once the answer has left).
      const sample = async (name: string, labels: string): Promise<number> => {
        for (let tries = 0; ; tries++) {
          const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
          const row = metrics.split('\n').find((line) => line.startsWith(`${name}{`) && line.includes('alias="claude-cached"') && line.includes(labels));
          if (row || tries === 20) return Number(row?.split(' ').at(-1));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      expect(await sample('arbor_aigw_cost_usd_total', '')).toBeCloseTo(cost, 12);
      expect(await sample('arbor_aigw_tokens_total', 'kind="completion"')).toBe(20);

      // Without a ttl, the writes go to the five-minute cache, at $3.75/M.
      const { response: fiveMinutes } = await anthropic.messages
        .create({
          model: 'claude-cached',
          max_tokens: 100,
          system: [{ type: 'text', text: 'shared', cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: 'five-minute cache' }],
        })
        .withResponse();
      expect(Number(fiveMinutes.headers.get('x-arbor-response-cost'))).toBeCloseTo(100 * 3e-6 + 1000 * 3.75e-6 + 2000 * 0.3e-6 + 20 * 15e-6, 12);
    });

    it.each([
      ['claude-400', BadRequestError, 400, 'invalid_request_error'],
      ['claude-401', AuthenticationError, 401, 'authentication_error'],
      ['claude-403', PermissionDeniedError, 403, 'permission_error'],
      ['claude-404', NotFoundError, 404, 'not_found_error'],
      ['claude-413', ContentTooLargeError, 413, 'request_too_large'],
      ['claude-429', RateLimitError, 429, 'rate_limit_error'],
      ['claude-500', InternalServerError, 500, 'api_error'],
      ['claude-overloaded', OverloadedError, 529, 'overloaded_error'],
    ])('answers the upstream error of %s as the SDK error class it raises at Anthropic', async (model, errorClass, status, type) => {
      const error = await refusal(anthropic.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'upstream error' }] }));
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toMatchObject({ status, error: { type: 'error', error: { type, message: expect.any(String) } } });
    });

    it('ends a stream the upstream failed mid-way with its error event', async () => {
      const stream = anthropic.messages.stream({ model: 'claude-midstream', max_tokens: 10, messages: [{ role: 'user', content: 'native midstream' }] });
      const texts: string[] = [];
      stream.on('text', (text) => texts.push(text));
      const error = await refusal(stream.finalMessage());
      expect(texts.join('')).toBe('fake ');
      expect(error).toMatchObject({ error: { type: 'error', error: { type: 'overloaded_error' } } });
    });
  });

  describe('on aliases served by other providers (bridged through chat completions)', () => {
    it.each([
      ['gpt', 'fake answer from gpt-4o-mini '.trim()],
      ['flash', undefined],
      ['azure-gpt', 'fake answer from prod-gpt-4o'],
    ])('answers %s plainly and streamed with the same message, in Anthropic fields', async (model, text) => {
      const params = { model, max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user' as const, content: `bridged ${model}` }] };
      const { data: plain, response } = await anthropic.messages.create(params).withResponse();
      expect(plain).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn' });
      expect(plain.content).toEqual([{ type: 'text', text: text ?? expect.any(String) }]);
      expect(plain.usage.input_tokens).toBeGreaterThan(0);
      expect(plain.usage.output_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-arbor-model-group')).toBe(model);

      const streamed = await anthropic.messages.stream(params).finalMessage();
      expect(streamed.content.map((block) => (block.type === 'text' ? block.text.trim() : block))).toEqual(
        plain.content.map((block) => (block.type === 'text' ? block.text.trim() : block)),
      );
      expect(streamed.stop_reason).toBe('end_turn');
      expect(streamed.usage).toMatchObject({ input_tokens: plain.usage.input_tokens, output_tokens: plain.usage.output_tokens });
    });

    it('sends an OpenAI alias the chat request: system first, stop sequences, user, image', async () => {
      await anthropic.messages.create({
        model: 'gpt',
        max_tokens: 50,
        system: 'Be brief.',
        stop_sequences: ['END'],
        metadata: { user_id: 'user-7' },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'bridged-request' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            ],
          },
        ],
      });
      const sent = await lastRequestWith(fake, 'bridged-request');
      expect(sent.path).toBe('/v1/chat/completions');
      expect(sent.json).toEqual({
        model: 'gpt-4o-mini',
        max_tokens: 50,
        stop: ['END'],
        user: 'user-7',
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'bridged-request' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
        ],
      });
    });

    it('calls tools both ways on an OpenAI alias, streamed and plain, and takes the tool result back', async () => {
      const first = await anthropic.messages
        .stream({ model: 'gpt', max_tokens: 100, tools: [weatherTool], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'bridged-tools' }] })
        .finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const toolUse = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
      expect(toolUse).toMatchObject({ name: 'get_weather', input: { argument: 'fake' } });
      const plainFirst = await anthropic.messages.create({ model: 'gpt', max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'bridged-tools' }] });
      expect(plainFirst.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { argument: 'fake' } });

      const second = await anthropic.messages.create({
        model: 'gpt',
        max_tokens: 100,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'bridged-tools' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse!.id, content: 'sunny-result' }] },
        ],
      });
      expect(second.stop_reason).toBe('end_turn');
      const sent = await lastRequestWith(fake, 'sunny-result');
      expect(sent.json['messages']).toEqual([
        { role: 'user', content: 'bridged-tools' },
        expect.objectContaining({ role: 'assistant', tool_calls: [{ id: toolUse!.id, type: 'function', function: { name: 'get_weather', arguments: '{"argument":"fake"}' } }] }),
        { role: 'tool', tool_call_id: toolUse!.id, content: 'sunny-result' },
      ]);
      expect(sent.json['tools']).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: weatherTool.input_schema } }]);
    });

    it('calls tools on a Gemini alias too, streamed, and takes the result back', async () => {
      const first = await anthropic.messages
        .stream({ model: 'flash', max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'gemini-tools' }] })
        .finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const toolUse = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
      // The fake calls the first function with a sample value of each property.
      expect(toolUse).toMatchObject({ name: 'get_weather', input: { city: 'fake' } });
      const second = await anthropic.messages.create({
        model: 'flash',
        max_tokens: 100,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'gemini-tools' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse!.id, content: 'gemini-sunny' }] },
        ],
      });
      expect(second).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'fake answer from gemini-2.5-flash' }] });
      const sent = await lastRequestWith(fake, 'gemini-sunny');
      expect(JSON.stringify(sent.json['contents'])).toContain('"functionResponse"');
    });

    it("shows a Gemini alias's thought summaries as thinking blocks, plain and streamed", async () => {
      const params = {
        model: 'flash',
        max_tokens: 2048,
        thinking: { type: 'enabled' as const, budget_tokens: 1024 },
        messages: [{ role: 'user' as const, content: 'gemini-thinking' }],
      };
      const plain = await anthropic.messages.create(params);
      expect(plain.content).toEqual([
        { type: 'thinking', thinking: 'The user wants a fake answer.', signature: '' },
        { type: 'text', text: 'fake answer from gemini-2.5-flash' },
      ]);
      const streamed = await anthropic.messages.stream(params).finalMessage();
      expect(streamed.content).toEqual(plain.content);
      // The thinking budget reached Gemini as its own (reasoning_effort low, 1024 tokens), thoughts asked for.
      const sent = await lastRequestWith(fake, 'gemini-thinking');
      expect((sent.json['generationConfig'] as Record<string, unknown>)['thinkingConfig']).toEqual({ thinkingBudget: 1024, includeThoughts: true });
    });

    it("searches with Gemini's Google Search for Anthropic's web search tool, answering with its blocks and citations, plain and streamed", async () => {
      const request = {
        model: 'flash',
        max_tokens: 100,
        tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 3 }],
        messages: [{ role: 'user' as const, content: 'messages grounded news' }],
      };
      const message = await anthropic.messages.create(request);
      expect((await lastRequestWith(fake, 'messages grounded news')).json['tools']).toEqual([{ googleSearch: {} }]);
      expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
      const [call, results, text] = message.content as [Anthropic.ServerToolUseBlock, Anthropic.WebSearchToolResultBlock, Anthropic.TextBlock];
      expect(call).toMatchObject({ name: 'web_search', input: { query: 'messages grounded news' } });
      expect(results).toMatchObject({ tool_use_id: call.id, content: [{ type: 'web_search_result', url: expect.stringContaining('fake-1') }, { type: 'web_search_result' }] });
      expect(text).toMatchObject({
        text: 'fake answer from gemini-2.5-flash',
        citations: [{ type: 'web_search_result_location', url: expect.stringContaining('fake-1'), cited_text: 'fake answer from gemini-2.5-flash' }],
      });

      const streamed = await anthropic.messages.stream({ ...request, messages: [{ role: 'user', content: 'messages streamed grounding' }] }).finalMessage();
      expect(streamed.content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'web_search_tool_result']);
      expect(streamed.content[0]).toMatchObject({ text: 'fake answer from gemini-2.5-flash', citations: [{ url: expect.stringContaining('fake-1') }] });
      expect(streamed.content[1]).toMatchObject({ input: { query: 'messages streamed grounding' } });

      // The next turn sends the search back, as Claude Code does: it stays with the provider that ran it.
      const next = await anthropic.messages.create({
        ...request,
        messages: [...request.messages, { role: 'assistant', content: message.content }, { role: 'user', content: 'thanks' }],
      });
      expect(next.content.at(-1)).toMatchObject({ type: 'text' });
    });

    it("refuses a server tool of Anthropic's the provider lacks (code execution), naming it, and drops it under drop_params saying so", async () => {
      const request = {
        model: 'flash',
        max_tokens: 10,
        tools: [{ type: 'code_execution_20250825', name: 'code_execution' }],
        messages: [{ role: 'user', content: 'server tool elsewhere' }],
      };
      const refused = await refusal(anthropic.messages.create(request as unknown as Anthropic.MessageCreateParamsNonStreaming));
      expect(refused).toBeInstanceOf(BadRequestError);
      expect((refused as BadRequestError).message).toMatch(/tools\.0: the code_execution_20250825 tool is run by Anthropic's API, and gemini has none/);
      const { response } = await anthropic.messages.create({ ...request, drop_params: true } as unknown as Anthropic.MessageCreateParamsNonStreaming).withResponse();
      expect(response.headers.get('x-arbor-dropped-params')).toBe('tools.0 (code_execution_20250825)');
    });

    it('follows drop_params for a parameter the target cannot honour: 400 naming it, or removed', async () => {
      // top_k: Anthropic's own sampling parameter (of API version 2023-06-01), which chat completions lack.
      const withTopK = (extra: Record<string, unknown> = {}) =>
        ({ model: 'flash', max_tokens: 10, top_k: 5, messages: [{ role: 'user', content: 'drop-top-k' }], ...extra }) as unknown as Anthropic.MessageCreateParamsNonStreaming;
      const refused = await refusal(anthropic.messages.create(withTopK()));
      expect(refused).toBeInstanceOf(BadRequestError);
      expect(refused).toMatchObject({ error: { type: 'error', error: { type: 'invalid_request_error', param: 'top_k', code: 'unsupported_parameter' } } });
      const dropped = await anthropic.messages.create(withTopK({ drop_params: true }));
      expect(dropped.stop_reason).toBe('end_turn');
    });

    it.each([
      ['gpt-429', RateLimitError, 429, 'rate_limit_error'],
      ['flash-500', InternalServerError, 500, 'api_error'],
    ])('answers the upstream error of bridged %s as the SDK error class it raises at Anthropic', async (model, errorClass, status, type) => {
      const error = await refusal(anthropic.messages.create({ model, max_tokens: 10, messages: [{ role: 'user', content: 'bridged upstream error' }] }));
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toMatchObject({ status, error: { type: 'error', error: { type, message: expect.any(String) } } });
    });

    it('ends a bridged stream the upstream failed mid-way with an Anthropic-format error event', async () => {
      const stream = anthropic.messages.stream({ model: 'gpt-midstream', max_tokens: 10, messages: [{ role: 'user', content: 'bridged midstream' }] });
      const error = await refusal(stream.finalMessage());
      expect(error).toMatchObject({ error: { type: 'error', error: { type: expect.any(String), message: expect.stringContaining('fake') } } });
    });

    it('falls back from a failing Claude alias to a GPT alias and still answers in Anthropic-format', async () => {
      const { data, response } = await anthropic.messages.create({ model: 'claude-down', max_tokens: 50, messages: [{ role: 'user', content: 'fallback' }] }).withResponse();
      expect(data).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'fake answer from gpt-4o-mini' }] });
      expect(response.headers.get('x-arbor-attempted-fallbacks')).toBe('1');
      expect(response.headers.get('x-arbor-model-group')).toBe('gpt');
    });
  });

  describe('token counts and the model list', () => {
    it('counts tokens on Anthropic, forwarding only model, messages, tools and system', async () => {
      const { data, response } = await anthropic.messages
        .countTokens({
          model: 'claude',
          system: 'Be brief.',
          tools: [weatherTool],
          tool_choice: { type: 'auto' },
          messages: [{ role: 'user', content: 'count-native tokens here' }],
        })
        .withResponse();
      // The fake counts words: 2 of system, 5 of the tool, 3 a message and 3 of its text.
      expect(data).toEqual({ input_tokens: 13 });
      expect(response.headers.get('x-arbor-token-count')).toBe('provider');
      const sent = await lastRequestWith(fake, 'count-native');
      expect(sent.path).toBe('/anthropic/v1/messages/count_tokens');
      expect(Object.keys(sent.json).sort()).toEqual(['messages', 'model', 'system', 'tools']);
      expect(sent.json['model']).toBe('claude-sonnet-4-5');
    });

    it('counts tokens of other aliases locally, and says the count is an estimate', async () => {
      const before = (await fake.requests()).length;
      const short = await anthropic.messages.countTokens({ model: 'gpt', messages: [{ role: 'user', content: 'count-local' }] }).withResponse();
      const long = await anthropic.messages.countTokens({
        model: 'flash',
        system: 'Be brief.',
        tools: [weatherTool],
        messages: [{ role: 'user', content: 'count-local with many more words in it' }],
      });
      expect(short.data.input_tokens).toBeGreaterThan(3);
      expect(long.input_tokens).toBeGreaterThan(short.data.input_tokens + 10);
      expect(short.response.headers.get('x-arbor-token-count')).toBe('estimate; encoding=o200k_base');
      expect((await fake.requests()).length).toBe(before);
    });

    it("lists the key's aliases in Anthropic's shape when anthropic-version is sent, and in OpenAI's otherwise", async () => {
      const ids: string[] = [];
      for await (const model of anthropic.models.list()) {
        expect(model).toEqual({ type: 'model', id: model.id, display_name: model.id, created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
        ids.push(model.id);
      }
      expect(ids).toEqual(expect.arrayContaining(['claude', 'gpt', 'flash', 'azure-gpt']));
      const page = await request(gateway.url).get('/v1/models').set('x-api-key', MASTER_KEY).set('anthropic-version', '2023-06-01').expect(200);
      expect(page.body).toMatchObject({ has_more: false, first_id: ids[0], last_id: ids.at(-1) });
      expect(await anthropic.models.retrieve('gpt')).toMatchObject({ type: 'model', id: 'gpt' });
      const missing = await refusal(anthropic.models.retrieve('no-such-alias'));
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing).toMatchObject({ error: { type: 'error', error: { type: 'not_found_error', code: 'model_not_found' } } });
      const openAiShape = await request(gateway.url).get('/v1/models').set('authorization', `Bearer ${MASTER_KEY}`).expect(200);
      expect(openAiShape.body).toMatchObject({ object: 'list', data: expect.arrayContaining([{ id: 'gpt', object: 'model', created: expect.any(Number), owned_by: 'arbor' }]) });
    });
  });

  describe("the gateway's own refusals", () => {
    it('answers a bad key with AuthenticationError, an unknown alias with NotFoundError, a bad request with BadRequestError', async () => {
      const unauthenticated = await refusal(sdk('sk-wrong').messages.create({ model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
      expect(unauthenticated).toBeInstanceOf(AuthenticationError);
      expect(unauthenticated).toMatchObject({ error: { type: 'error', error: { type: 'authentication_error', code: 'invalid_api_key' } } });
      const unknown = await refusal(anthropic.messages.create({ model: 'no-such-alias', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
      expect(unknown).toBeInstanceOf(NotFoundError);
      expect(unknown).toMatchObject({ error: { type: 'error', error: { type: 'not_found_error', code: 'model_not_found' } } });
      // The bridge reads the request as Anthropic would and names what is wrong.
      const invalid = await refusal(anthropic.messages.create({ model: 'gpt', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] }));
      expect(invalid).toBeInstanceOf(BadRequestError);
      expect(invalid).toMatchObject({ error: { type: 'error', error: { type: 'invalid_request_error', param: 'max_tokens' } } });
    });

    it('records an estimated spend, prompt and text so far, when the client hangs up mid-stream', async () => {
      const created = (await request(gateway.url).post('/api/v1/keys').set(asMaster).send({ project: 'messages-hang-ups' }).expect(201)).body as { id: string; key: string };
      const prompt = 'a messages question whose answer nobody reads';
      const stream = sdk(created.key).messages.stream({ model: 'claude-held', max_tokens: 50, messages: [{ role: 'user', content: prompt }] });
      const ended = stream.finalMessage().catch((error: unknown) => error);
      await new Promise<void>((resolve) => stream.on('text', () => resolve()));
      stream.abort();
      expect(await ended).toBeInstanceOf(APIUserAbortError);
      let report: { totals: Record<string, number> } | undefined;
      for (let tries = 0; tries < 100 && !report?.totals['requests']; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        report = (await request(gateway.url).get(`/api/v1/keys/${created.id}/spend`).set(asMaster).expect(200)).body as typeof report;
      }
      // Counted as the request would go to chat (3 for the reply, 3 for the message, its text), and the first delta, "fake ".
      const promptTokens = 3 + 3 + countTokens(`user\n${prompt}`);
      const completionTokens = countTokens('fake ');
      expect(report?.totals).toMatchObject({ requests: 1, estimated_requests: 1, prompt_tokens: promptTokens, completion_tokens: completionTokens });
      expect(report?.totals['estimated_cost_usd']).toBeCloseTo(promptTokens * 0.001 + completionTokens * 0.002, 10);
      expect((await fake.requests()).find((seen) => seen.body.includes(prompt))?.aborted).toBe(true);
    });

    it('answers malformed JSON and a body over the limit in the envelope of both families', async () => {
      const malformed = await request(gateway.url).post('/v1/messages').set('x-api-key', MASTER_KEY).set('content-type', 'application/json').send('{"model":').expect(400);
      expect(malformed.body).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining('not valid JSON'), param: null, code: 'invalid_request' },
      });
      const tooLarge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(`${gateway.url}/v1/messages`);
        const call = httpRequest({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'x-api-key': MASTER_KEY, 'content-type': 'application/json', 'content-length': String(101 * 1024 * 1024) },
        });
        call.on('response', (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => {
            call.destroy();
            resolve({ status: response.statusCode ?? 0, body });
          });
        });
        call.on('error', reject);
        call.write('{"model": "claude", "messages": [');
      });
      expect(tooLarge.status).toBe(413);
      expect(JSON.parse(tooLarge.body)).toMatchObject({ type: 'error', error: { type: 'request_too_large', code: 'request_too_large' } });
      // A route the gateway does not serve, asked by an Anthropic client.
      const unknownRoute = await request(gateway.url).get('/v1/messages/batches').set('x-api-key', MASTER_KEY).set('anthropic-version', '2023-06-01').expect(404);
      expect(unknownRoute.body).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: expect.any(String) } });
    });

    it("refuses an alias the key may not use with PermissionDeniedError, a key over its rpm limit with RateLimitError, and records the key's spend", async () => {
      const created = (
        await request(gateway.url)
          .post('/api/v1/keys')
          .set(asMaster)
          .send({ project: 'messages', aliases: ['claude'], rpm_limit: 1 })
          .expect(201)
      ).body as { id: string; key: string };
      const client = sdk(created.key);
      const denied = await refusal(client.messages.create({ model: 'gpt', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
      expect(denied).toBeInstanceOf(PermissionDeniedError);
      expect(denied).toMatchObject({ error: { type: 'error', error: { type: 'permission_error', code: 'key_model_access_denied' } } });

      const { response } = await client.messages.create({ model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'spend' }] }).withResponse();
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('1');
      const limited = await refusal(client.messages.create({ model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
      expect(limited).toBeInstanceOf(RateLimitError);
      expect(limited).toMatchObject({ error: { type: 'error', error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } } });

      // Spend is written behind, at most a second later.
      let report: { totals: { requests: number; prompt_tokens: number; completion_tokens: number; cost_usd: number } } | undefined;
      for (let tries = 0; tries < 30; tries++) {
        report = (await request(gateway.url).get(`/api/v1/keys/${created.id}/spend`).set(asMaster).expect(200)).body as typeof report;
        if (report?.totals.requests) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(report?.totals).toMatchObject({ requests: 1, prompt_tokens: 7, completion_tokens: 5 });
      expect(report?.totals.cost_usd).toBeCloseTo(7 * 3e-6 + 5 * 15e-6, 12);
    });
  });
});
