// The most used TypeScript framework as its users call the gateway: the AI SDK's OpenAI provider,
// whose default model object (`openai(model)`) speaks the Responses API, on an OpenAI alias
// (passed through) and on a Claude alias (bridged through chat completions), plain, streamed and
// with a tool loop.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { RunningService } from '@arbor/platform';
import { AiGatewayConfig } from '@arbor/config';
import { lastRequestWith, MASTER_KEY, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

describe("the AI SDK's default OpenAI model object through the gateway", () => {
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;
  let openai: ReturnType<typeof createOpenAI>;

  beforeAll(async () => {
    ({ fake, database, gateway } = await startGatewayOnFakes(
      (fakeUrl) => `model_list:
  - model_name: gpt
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-5, api_base: ${fakeUrl}/anthropic, api_key: sk-upstream }
`,
    ));
    openai = createOpenAI({ apiKey: MASTER_KEY, baseURL: `${gateway.url}/v1` });
  }, 60_000);

  afterAll(() => stopGatewayOnFakes({ fake, database, gateway }));

  it('generates text on an OpenAI alias over the Responses API, with its usage', async () => {
    const result = await generateText({ model: openai('gpt'), prompt: 'ai sdk native' });
    expect(result.text).toBe('fake answer from gpt-4o-mini');
    expect(result.usage).toMatchObject({ inputTokens: 7, outputTokens: 5 });
    expect((await lastRequestWith(fake, 'ai sdk native')).path).toBe('/v1/responses');
  });

  it('streams text from a Claude alias bridged from the Responses API', async () => {
    const result = streamText({ model: openai('claude'), prompt: 'ai sdk streamed' });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('fake answer from claude-sonnet-4-5');
    expect(await result.usage).toMatchObject({ inputTokens: 7, outputTokens: 5 });
    expect((await lastRequestWith(fake, 'ai sdk streamed')).path).toBe('/anthropic/v1/messages');
  });

  it('runs a tool loop on a Claude alias: the call, the tool, the answer after its result', async () => {
    const calls: unknown[] = [];
    const result = await generateText({
      model: openai('claude'),
      prompt: 'ai sdk tools',
      tools: {
        lookup: tool({
          description: 'Looks a thing up',
          inputSchema: jsonSchema<{ argument: string }>({ type: 'object', properties: { argument: { type: 'string' } }, required: ['argument'] }),
          execute: async (input) => {
            calls.push(input);
            return 'looked up';
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(calls).toEqual([{ argument: 'fake' }]);
    expect(result.steps.length).toBe(2);
    expect(result.text).toBe('fake answer from claude-sonnet-4-5');
    const second = await lastRequestWith(fake, 'looked up');
    expect(JSON.stringify(second.json['messages'])).toContain('"tool_result"');
  });
});
