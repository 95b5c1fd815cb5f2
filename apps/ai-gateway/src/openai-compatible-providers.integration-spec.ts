// The OpenAI-compatible long tail as application developers meet it: the official OpenAI SDK against
// the gateway, the gateway against tools/fake-providers' OpenAI fake (`/openai`), or its variant
// that streams usage unasked and refuses `stream_options` (`/openai-compatible`). Each provider is
// one folder of data in libs/provider-adapters and one row of this table.
import OpenAI, { BadRequestError } from 'openai';
import { RunningService } from '@arbor/platform';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { aiGatewayService } from './ai-gateway.module';
import { lastRequestWith, readChatStream, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

interface CompatibleProvider {
  provider: string;
  model: string;
  /** The fake it is served by: OpenAI's own, or the one that streams usage unasked. */
  fake: 'openai' | 'openai-compatible';
  /** The key from the provider's own environment variable (as LiteLLM reads it), or from litellm_params. */
  keyEnv?: string;
  /** The base from the provider's own environment variable instead of api_base. */
  baseEnv?: string;
  /** List price, USD per million tokens (0: not in the built-in list). */
  price: { input: number; output: number };
}

const PROVIDERS: CompatibleProvider[] = [
  { provider: 'mistral', model: 'mistral-small-latest', fake: 'openai-compatible', keyEnv: 'MISTRAL_API_KEY', price: { input: 0.1, output: 0.3 } },
  { provider: 'groq', model: 'llama-3.3-70b-versatile', fake: 'openai', keyEnv: 'GROQ_API_KEY', price: { input: 0.59, output: 0.79 } },
  { provider: 'deepseek', model: 'deepseek-chat', fake: 'openai', keyEnv: 'DEEPSEEK_API_KEY', price: { input: 0.28, output: 0.42 } },
  { provider: 'xai', model: 'grok-3-mini', fake: 'openai', keyEnv: 'XAI_API_KEY', price: { input: 0.3, output: 0.5 } },
  { provider: 'together_ai', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', fake: 'openai-compatible', keyEnv: 'TOGETHERAI_API_KEY', price: { input: 0.88, output: 0.88 } },
  { provider: 'fireworks_ai', model: 'accounts/fireworks/models/llama-v3p3-70b-instruct', fake: 'openai', keyEnv: 'FIREWORKS_AI_API_KEY', price: { input: 0.9, output: 0.9 } },
  { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', fake: 'openai', keyEnv: 'OPENROUTER_API_KEY', price: { input: 0, output: 0 } },
  { provider: 'perplexity', model: 'sonar-pro', fake: 'openai-compatible', keyEnv: 'PERPLEXITYAI_API_KEY', price: { input: 3, output: 15 } },
  { provider: 'cerebras', model: 'llama-3.3-70b', fake: 'openai-compatible', keyEnv: 'CEREBRAS_API_KEY', price: { input: 0.85, output: 1.2 } },
  { provider: 'ollama', model: 'llama3.2', fake: 'openai', baseEnv: 'OLLAMA_API_BASE', price: { input: 0, output: 0 } },
  { provider: 'hosted_vllm', model: 'Qwen/Qwen3-8B', fake: 'openai', keyEnv: 'HOSTED_VLLM_API_KEY', baseEnv: 'HOSTED_VLLM_API_BASE', price: { input: 0, output: 0 } },
  { provider: 'lm_studio', model: 'qwen3-4b', fake: 'openai', price: { input: 0, output: 0 } },
];

const alias = (row: CompatibleProvider) => `${row.provider}-chat`;
const secret = (row: CompatibleProvider) => `${row.provider}-upstream-secret`;

function deployment(row: CompatibleProvider, fakeUrl: string): string {
  return `
  - model_name: ${alias(row)}
    litellm_params:
      model: ${row.provider}/${row.model}${row.baseEnv ? '' : `\n      api_base: ${fakeUrl}/${row.fake}`}${row.keyEnv ? '' : `\n      api_key: ${secret(row)}`}`;
}

describe('ai-gateway chat completions on the OpenAI-compatible providers through the official OpenAI SDK', () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<InstanceType<typeof aiGatewayService.schema>>;
  let client: OpenAI;
  const variables: string[] = [];

  beforeAll(async () => {
    ({ fake, database, gateway, client } = await startGatewayOnFakes((fakeUrl) => {
      // The provider's own variables, as a LiteLLM user sets them: no key or base in the file.
      for (const row of PROVIDERS) {
        if (row.keyEnv) process.env[row.keyEnv] = secret(row);
        if (row.baseEnv) process.env[row.baseEnv] = `${fakeUrl}/${row.fake}`;
        variables.push(...[row.keyEnv, row.baseEnv].filter((name): name is string => name !== undefined));
      }
      return `model_list:${PROVIDERS.map((row) => deployment(row, fakeUrl)).join('')}\n`;
    }));
  });

  afterAll(async () => {
    await stopGatewayOnFakes({ fake, database, gateway });
    for (const name of variables) delete process.env[name];
  });

  it.each(PROVIDERS)('$provider: answers a chat with the provider key as a bearer token, priced at its list price', async (row) => {
    const marker = `plain ${row.provider}`;
    const { data, response } = await client.chat.completions
      .create({
        model: alias(row),
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: marker },
        ],
        temperature: 0.2,
        max_tokens: 30,
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe(`fake answer from ${row.model}`);
    expect(data.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    const seen = await lastRequestWith(fake, marker);
    expect(seen.path).toBe(`/${row.fake}/v1/chat/completions`);
    expect(seen.headers['authorization']).toBe(`Bearer ${secret(row)}`);
    expect(seen.json).toEqual({
      model: row.model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: marker },
      ],
      temperature: 0.2,
      max_tokens: 30,
    });
    expect(Number(response.headers.get('x-arbor-response-cost'))).toBeCloseTo(7 * row.price.input * 1e-6 + 5 * row.price.output * 1e-6, 15);
  });

  it.each(PROVIDERS)('$provider: streams chunk by chunk and ends with the usage', async (row) => {
    const marker = `stream ${row.provider}`;
    const stream = await client.chat.completions.create({
      model: alias(row),
      messages: [{ role: 'user', content: marker }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usage } = await readChatStream(stream);
    expect(text).toBe(`fake answer from ${row.model} `);
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    // Servers that stream usage unasked refuse stream_options: the gateway does not send it to them.
    const seen = await lastRequestWith(fake, marker);
    expect(seen.json['stream_options']).toEqual(row.fake === 'openai' ? { include_usage: true } : undefined);
  });

  it('passes tools and a tool-result turn through, and renames what Mistral names otherwise', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'mistral tools' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
    ];
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const completion = await client.chat.completions.create({ model: 'mistral-chat', messages, tools, tool_choice: 'required', seed: 42, max_completion_tokens: 64 });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect((await lastRequestWith(fake, 'mistral tools')).json).toEqual({
      model: 'mistral-small-latest',
      messages,
      tools,
      tool_choice: 'any',
      random_seed: 42,
      max_tokens: 64,
    });
  });

  it('refuses a parameter the provider does not take with 400 naming it', async () => {
    const error = await client.chat.completions
      .create({ model: 'perplexity-chat', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f' } }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toContain('"tools"');
  });
});
