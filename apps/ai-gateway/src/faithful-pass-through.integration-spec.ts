// Faithful pass-through and errors as application developers meet them with the official OpenAI
// SDK: parameters OpenAI documents reach OpenAI and Azure unchanged, translated providers judge
// theirs, unknown paths and refusals answer in OpenAI's envelope and vocabulary, and the call's
// cost reaches the client in `usage.cost`.
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError, RateLimitError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, MASTER_KEY, sdkClient, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

/** Parameters OpenAI documents (or will): no support list of ours knows them all. */
const NEWER_PARAMS = { prompt_cache_retention: '24h', prompt_cache_options: { mode: 'explicit' }, moderation: { mode: 'strict' }, top_k: 5 };

const loose = (body: Record<string, unknown>) => body as unknown as ChatCompletionCreateParamsNonStreaming;

describe('faithful pass-through and OpenAI-shaped errors through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;

  beforeAll(async () => {
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) => `model_list:
  - model_name: gpt
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
  - model_name: gpt-priced
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
  - model_name: azure-gpt
    litellm_params: { model: azure/prod-gpt-4o, api_base: ${fakeUrl}/azure, api_key: azure-upstream }
  - model_name: claude
    litellm_params: { model: anthropic/claude-test, api_base: ${fakeUrl}/anthropic, api_key: sk-ant-upstream }
  - model_name: flash
    litellm_params: { model: gemini/gemini-2.0-flash, api_base: ${fakeUrl}/gemini, api_key: gemini-upstream }
`,
    ));
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  const ask = (model: string, marker: string, extra: Record<string, unknown> = {}) =>
    client.chat.completions.create(loose({ model, messages: [{ role: 'user', content: marker }], ...extra }));

  describe('parameters', () => {
    it.each([
      ['gpt', 'openai-newer', '/v1/chat/completions', 'gpt-4o-mini'],
      ['azure-gpt', 'azure-newer', '/azure/openai/deployments/prod-gpt-4o/chat/completions?api-version=2024-10-21', 'prod-gpt-4o'],
    ])('sends parameters no support list knows to %s unchanged (a pass-through provider judges its own)', async (alias, marker, path, model) => {
      await ask(alias, marker, NEWER_PARAMS);
      const seen = await lastRequestWith(fake, marker);
      expect(seen.path).toBe(path);
      expect(seen.json).toEqual({ model, messages: [{ role: 'user', content: marker }], ...NEWER_PARAMS });
    });

    it('sends them on the Responses API of an OpenAI alias too', async () => {
      await client.responses.create({ model: 'gpt', input: 'responses-newer', ...NEWER_PARAMS } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      expect((await lastRequestWith(fake, 'responses-newer')).json).toMatchObject({ model: 'gpt-4o-mini', ...NEWER_PARAMS });
    });

    it("sends them on an OpenAI alias's image generations and moderations too", async () => {
      await client.images.generate(loose({ model: 'gpt', prompt: 'images-newer', output_watermark: 'on' }) as unknown as OpenAI.Images.ImageGenerateParamsNonStreaming);
      expect((await lastRequestWith(fake, 'images-newer')).json).toMatchObject({ model: 'gpt-4o-mini', prompt: 'images-newer', output_watermark: 'on' });
      await client.moderations.create(loose({ model: 'gpt', input: 'moderations-newer', policy: 'strict' }) as unknown as OpenAI.ModerationCreateParams);
      expect((await lastRequestWith(fake, 'moderations-newer')).json).toMatchObject({ input: 'moderations-newer', policy: 'strict' });
    });

    it.each([['claude'], ['flash']])('still judges them on a translated provider (%s): 400 naming the parameter, dropped under drop_params', async (alias) => {
      const refused = await ask(alias, `${alias}-judged`, { prompt_cache_retention: '24h' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BadRequestError);
      expect(refused).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_parameter', param: 'prompt_cache_retention' });
      expect((await fake.requests()).some((seen) => seen.body.includes(`${alias}-judged`))).toBe(false);

      await ask(alias, `${alias}-dropped`, { prompt_cache_retention: '24h', drop_params: true });
      const seen = await lastRequestWith(fake, `${alias}-dropped`);
      expect(seen.body).not.toContain('prompt_cache_retention');
      expect(seen.body).not.toContain('drop_params');
    });
  });

  describe('unknown paths and errors', () => {
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

    it('answers a path it does not serve with 404 in the OpenAI-format envelope to a caller with a key (NotFoundError)', async () => {
      const error = await client.post('/nonsense/path', { body: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).error).toEqual({
        message: expect.stringContaining('POST /v1/nonsense/path'),
        type: 'invalid_request_error',
        param: null,
        code: 'unknown_path',
      });
      // A method the path is not served with is as unknown.
      const wrongMethod = await fetch(`${gateway.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
      expect(wrongMethod.status).toBe(404);
      expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe('unknown_path');
    });

    it('checks the key before the path: no key or a bad one is a 401 (AuthenticationError) on an unknown path', async () => {
      const missing = await post('/v1/no-such-thing', {});
      expect(missing.status).toBe(401);
      expect(await missing.json()).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'missing_api_key' } });
      const stranger = sdkClient(gateway, 'sk-not-a-key');
      const error = await stranger.post('/no-such-thing', { body: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
    });

    it('leaves the admin API, health and metrics their own answers', async () => {
      const admin = await fetch(`${gateway.url}/api/v1/no-such-thing`);
      expect(admin.status).toBe(404);
      expect(((await admin.json()) as { error: { code: string } }).error.code).toBe('not_found');
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(200);
    });

    it("names an unknown model and a key over its limit in OpenAI's types, the reason in code", async () => {
      const unknown = await ask('no-such-alias', 'x').catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(NotFoundError);
      expect(unknown).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found' });

      const created = await fetch(`${gateway.url}/api/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project: 'errors', rpm_limit: 1 }),
      });
      const limited = sdkClient(gateway, ((await created.json()) as { key: string }).key);
      await limited.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'first' }] });
      const refused = await limited.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'second' }] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimitError);
      expect(refused).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    });
  });

  describe('cost', () => {
    // The fake reports 7 prompt and 5 completion tokens: 7 × 0.001 + 5 × 0.002.
    const COST = 0.017;

    it("puts the call's cost in the final usage chunk of a stream that asked for usage, beside the trailer", async () => {
      const stream = await client.chat.completions.create({
        model: 'gpt-priced',
        messages: [{ role: 'user', content: 'stream-cost' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const usages: unknown[] = [];
      let text = '';
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usages.push(chunk.usage);
      }
      expect(text).toBe('fake answer from gpt-4o-mini ');
      expect(usages).toEqual([expect.objectContaining({ prompt_tokens: 7, completion_tokens: 5, cost: COST })]);
    });

    it('puts it in the usage of a JSON answer too, beside the x-arbor-response-cost header', async () => {
      const { data, response } = await client.chat.completions.create({ model: 'gpt-priced', messages: [{ role: 'user', content: 'json-cost' }] }).withResponse();
      expect((data.usage as unknown as { cost: number }).cost).toBe(COST);
      expect(Number(response.headers.get('x-arbor-response-cost'))).toBe(COST);
    });
  });
});
