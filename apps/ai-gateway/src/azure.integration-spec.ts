// Azure OpenAI deployments as application developers meet them: the official OpenAI SDK against
// the gateway, the gateway against the Azure fake of tools/fake-providers. Azure passes through:
// what the client sends reaches Azure unchanged apart from `model`.
import OpenAI, { AuthenticationError, BadRequestError, InternalServerError, RateLimitError } from 'openai';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const deployment = (alias: string, deploymentName: string, fakeUrl: string) => `
  - model_name: ${alias}
    litellm_params:
      model: azure/${deploymentName}
      api_base: ${fakeUrl}/azure
      api_version: 2025-04-01-preview
      api_key: os.environ/AIGW_TEST_AZURE_KEY`;

describe('ai-gateway chat completions on Azure OpenAI through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;

  beforeAll(async () => {
    process.env['AIGW_TEST_AZURE_KEY'] = 'azure-upstream-secret';
    ({ fake, database, gateway, client } = await startGatewayOnFakes(
      (fakeUrl) =>
        `model_list:${[
          deployment('gpt', 'prod-gpt-4o', fakeUrl),
          deployment('gpt-usage', 'tokens-11-4', fakeUrl),
          deployment('gpt-bad-key', 'fail-401', fakeUrl),
          deployment('gpt-limited', 'fail-429', fakeUrl),
          deployment('gpt-overloaded', 'fail-503', fakeUrl),
          deployment('gpt-small', 'fail-context', fakeUrl),
        ].join('')}\n`,
    ));
  });

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it('passes the request to the deployment URL unchanged apart from model, with the key in api-key', async () => {
    const request = {
      messages: [
        { role: 'system' as const, content: 'Be brief.' },
        { role: 'user' as const, content: 'plain azure' },
      ],
      temperature: 0.3,
      top_p: 0.9,
      max_completion_tokens: 40,
      seed: 7,
      user: 'user-1',
      logit_bias: { '50256': -100 },
      response_format: { type: 'json_object' as const },
    };
    const completion = await client.chat.completions.create({ model: 'gpt', ...request });
    expect(completion.choices[0]?.message.content).toBe('fake answer from prod-gpt-4o');
    expect(completion.usage?.total_tokens).toBe(12);
    const seen = await lastRequestWith(fake, 'plain azure');
    expect(seen.path).toBe('/azure/openai/deployments/prod-gpt-4o/chat/completions?api-version=2025-04-01-preview');
    expect(seen.headers['api-key']).toBe('azure-upstream-secret');
    expect(seen.headers['authorization']).toBeUndefined();
    expect(seen.json).toEqual({ model: 'prod-gpt-4o', ...request });
  });

  it('passes tools, tool results and images through as sent', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'azure tools and image' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
    ];
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    await client.chat.completions.create({ model: 'gpt', messages, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false });
    expect((await lastRequestWith(fake, 'azure tools and image')).json).toEqual({
      model: 'prod-gpt-4o',
      messages,
      tools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    });
  });

  it('streams chunk by chunk and ends with the usage when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-usage',
      messages: [{ role: 'user', content: 'azure stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('fake answer from tokens-11-4 ');
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 });
  });

  it("answers Azure's 401 as AuthenticationError without the key in the message", async () => {
    const error = await client.chat.completions.create({ model: 'gpt-bad-key', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe('invalid_api_key');
    expect((error as AuthenticationError).message).not.toContain('azure-upstream-secret');
  });

  it("answers Azure's 429 as RateLimitError with Retry-After", async () => {
    const error = await client.chat.completions.create({ model: 'gpt-limited', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('rate_limit_exceeded');
    expect((error as RateLimitError).headers.get('retry-after')).toBe('1');
  });

  it('answers a 503 as InternalServerError 503', async () => {
    const error = await client.chat.completions.create({ model: 'gpt-overloaded', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(503);
  });

  it('answers a too long prompt as BadRequestError with code context_length_exceeded', async () => {
    const error = await client.chat.completions.create({ model: 'gpt-small', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).code).toBe('context_length_exceeded');
  });
});
