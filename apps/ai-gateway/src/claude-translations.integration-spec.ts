// What a LiteLLM user asks of a Claude alias beyond chat (issue 33), through the official SDKs
// against the gateway on the fake providers: JSON-schema and JSON-object output (Claude's native
// structured outputs where the model has them, a forced tool where it has not), text completions
// bridged through chat, plain and streamed, and Anthropic's Skills API at the gateway's root, each
// project reaching only its own skills. Also the OpenAI fake's Responses API calling tools as the
// real API does, so a tool loop on a GPT alias can be tried.
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { asMaster, GatewayOnFakes, lastRequestWith, readChatStream, rejectionOf, sdkClient, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

const schema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    temperature: { type: 'number' },
    conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rainy'] },
    hourly: { type: 'array', items: { type: 'object', properties: { hour: { type: 'integer' } }, required: ['hour'], additionalProperties: false } },
  },
  required: ['city', 'temperature', 'conditions', 'hourly'],
  additionalProperties: false,
};
// The same shape in zod, to check what came back against it.
const Weather = z.strictObject({
  city: z.string(),
  temperature: z.number(),
  conditions: z.enum(['sunny', 'cloudy', 'rainy']),
  hourly: z.array(z.strictObject({ hour: z.int() })),
});
const matchesSchema = (value: unknown): boolean => Weather.safeParse(value).success;
const weather = { type: 'json_schema' as const, json_schema: { name: 'weather', strict: true, schema } };

describe('Claude aliases beyond chat: structured output, text completions, skills', () => {
  let running: GatewayOnFakes;
  let client: OpenAI;

  beforeAll(async () => {
    running = await startGatewayOnFakes(
      (fake) => `
model_list:
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-6, api_base: ${fake}/anthropic, api_key: sk-upstream-anthropic }
  - model_name: claude-3
    litellm_params: { model: anthropic/claude-3-5-haiku-20241022, api_base: ${fake}/anthropic, api_key: sk-upstream-anthropic }
  - model_name: gpt
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake}/openai/v1, api_key: sk-upstream-openai }
  - model_name: bedrock-claude
    litellm_params:
      model: bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0
      api_base: ${fake}/bedrock
      aws_region_name: us-east-1
      # The key the fake knows (tools/fake-providers/src/bedrock-fake.ts).
      aws_access_key_id: FAKEBEDROCKACCESSKEY
      aws_secret_access_key: fake-bedrock-secret-access-key
`,
    );
    client = running.client;
  }, 60_000);

  afterAll(() => stopGatewayOnFakes(running));

  const newKey = async (project: string, aliases?: string[]): Promise<string> => {
    const created = await fetch(`${running.gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project, ...(aliases ? { aliases } : {}) }) });
    expect(created.status).toBe(201);
    return ((await created.json()) as { key: string }).key;
  };

  describe('response_format', () => {
    it("answers a JSON schema with Claude's native structured outputs: parseable JSON matching the schema", async () => {
      const completion = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'native-schema weather?' }], response_format: weather });
      const content = completion.choices[0]?.message.content ?? '';
      expect(matchesSchema(JSON.parse(content))).toBe(true);
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      const sent = (await lastRequestWith(running.fake, 'native-schema weather?')).json;
      expect(sent['output_config']).toEqual({ format: { type: 'json_schema', schema } });
      expect(sent['tools']).toBeUndefined();
    });

    it('parses into a zod type with chat.completions.parse, and streams the JSON as content', async () => {
      const parsed = await client.chat.completions.parse({
        model: 'claude',
        messages: [{ role: 'user', content: 'zod weather?' }],
        response_format: zodResponseFormat(Weather, 'weather'),
      });
      expect(matchesSchema(parsed.choices[0]?.message.parsed)).toBe(true);

      const streamed = await readChatStream(
        await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'streamed weather?' }], response_format: weather, stream: true }),
      );
      expect(matchesSchema(JSON.parse(streamed.text))).toBe(true);
      expect(streamed.finishReason).toBe('stop');
    });

    it('answers a JSON schema on a model without structured outputs through a forced tool, its input as the content, plain and streamed', async () => {
      const completion = await client.chat.completions.create({ model: 'claude-3', messages: [{ role: 'user', content: 'tool-schema weather?' }], response_format: weather });
      const message = completion.choices[0]?.message;
      expect(matchesSchema(JSON.parse(message?.content ?? ''))).toBe(true);
      expect(message?.tool_calls).toBeUndefined();
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      const sent = (await lastRequestWith(running.fake, 'tool-schema weather?')).json;
      expect(sent['output_config']).toBeUndefined();
      expect(sent['tools']).toEqual([expect.objectContaining({ name: 'json_tool_call', input_schema: schema })]);
      expect(sent['tool_choice']).toEqual({ type: 'tool', name: 'json_tool_call' });

      const streamed = await readChatStream(
        await client.chat.completions.create({ model: 'claude-3', messages: [{ role: 'user', content: 'tool-streamed weather?' }], response_format: weather, stream: true }),
      );
      expect(matchesSchema(JSON.parse(streamed.text))).toBe(true);
      expect(streamed.finishReason).toBe('stop');
    });

    it("answers a JSON schema on Bedrock's Converse through a forced tool, plain and streamed", async () => {
      const completion = await client.chat.completions.create({
        model: 'bedrock-claude',
        messages: [{ role: 'user', content: 'converse-schema weather?' }],
        response_format: weather,
      });
      expect(matchesSchema(JSON.parse(completion.choices[0]?.message.content ?? ''))).toBe(true);
      expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      const sent = (await lastRequestWith(running.fake, 'converse-schema weather?')).json;
      expect(sent['toolConfig']).toEqual({
        tools: [{ toolSpec: expect.objectContaining({ name: 'json_tool_call', inputSchema: { json: schema } }) }],
        toolChoice: { tool: { name: 'json_tool_call' } },
      });

      const streamed = await readChatStream(
        await client.chat.completions.create({
          model: 'bedrock-claude',
          messages: [{ role: 'user', content: 'converse-streamed weather?' }],
          response_format: weather,
          stream: true,
        }),
      );
      expect(matchesSchema(JSON.parse(streamed.text))).toBe(true);
      expect(streamed.finishReason).toBe('stop');
    });

    it('answers json_object with a JSON object', async () => {
      const completion = await client.chat.completions.create({
        model: 'claude',
        messages: [{ role: 'user', content: 'json-object please' }],
        response_format: { type: 'json_object' },
      });
      expect(typeof JSON.parse(completion.choices[0]?.message.content ?? '')).toBe('object');
      expect((await lastRequestWith(running.fake, 'json-object please')).json['tool_choice']).toEqual({ type: 'tool', name: 'json_tool_call' });
    });
  });

  describe('/v1/completions', () => {
    it('answers a text completion from Claude through chat: the prompt as one user message, the text and usage back', async () => {
      const completion = await client.completions.create({ model: 'claude', prompt: 'complete-me please', max_tokens: 20 });
      expect(completion.object).toBe('text_completion');
      expect(completion.id).toMatch(/^cmpl-/);
      expect(completion.choices[0]).toMatchObject({ index: 0, text: 'fake answer from claude-sonnet-4-6', finish_reason: 'stop' });
      expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
      const sent = (await lastRequestWith(running.fake, 'complete-me please')).json;
      expect(sent['messages']).toEqual([{ role: 'user', content: [{ type: 'text', text: 'complete-me please' }] }]);
      expect(sent['max_tokens']).toBe(20);
    });

    it('streams a text completion chunk by chunk, with its usage when asked', async () => {
      const stream = await client.completions.create({ model: 'claude', prompt: 'stream-me please', stream: true, stream_options: { include_usage: true } });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null = null;
      let chunks = 0;
      for await (const chunk of stream) {
        expect(chunk.object).toBe('text_completion');
        chunks++;
        text += chunk.choices[0]?.text ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      expect(chunks).toBeGreaterThan(2);
      expect(text).toBe('fake answer from claude-sonnet-4-6');
      expect(finish).toBe('stop');
      expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5 });
    });

    it('refuses what chat cannot carry, naming it, and drops it under drop_params', async () => {
      const refused = await rejectionOf(client.completions.create({ model: 'claude', prompt: 'suffix please', suffix: ' end' }));
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('suffix');
      const dropped = await client.completions.create({
        model: 'claude',
        prompt: 'suffix dropped',
        suffix: ' end',
        drop_params: true,
      } as OpenAI.CompletionCreateParamsNonStreaming);
      expect(dropped.choices[0]?.text).toBe('fake answer from claude-sonnet-4-6');
    });
  });

  describe('the Skills API at /v1/skills', () => {
    const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: running.gateway.url, maxRetries: 0 });
    const skillFiles = async (name: string) => [
      await toFile(Buffer.from(`---\nname: ${name}\ndescription: Writes ${name} reports\n---\n# ${name}\n`), `${name}/SKILL.md`, { type: 'text/markdown' }),
    ];

    it("serves a project's skills and their versions through the Anthropic deployment, out of another project's reach", async () => {
      const alpha = anthropic(await newKey('skills-alpha'));
      const beta = anthropic(await newKey('skills-beta'));

      const skill = await alpha.skills.create({ files: await skillFiles('quarterly'), display_name: 'Quarterly reports' });
      expect(skill).toMatchObject({ type: 'skill', display_name: 'Quarterly reports', source: { type: 'custom' } });
      expect(skill.id).toMatch(/^skill_/);
      const seen = (await running.fake.requests()).filter((request) => request.path.startsWith('/anthropic/v1/skills')).at(-1);
      expect(seen?.headers['x-api-key']).toBe('sk-upstream-anthropic');

      const listed = [];
      for await (const item of alpha.skills.list()) listed.push(item.id);
      expect(listed).toContain(skill.id);
      // Anthropic's own skills are every key's.
      expect(listed).toEqual(expect.arrayContaining(['pptx', 'xlsx']));
      expect((await alpha.skills.retrieve(skill.id)).id).toBe(skill.id);
      expect((await beta.skills.retrieve('pptx')).source).toEqual({ type: 'anthropic' });

      const version = await alpha.skills.versions.create(skill.id, { files: await skillFiles('quarterly') });
      expect(version).toMatchObject({ type: 'skill_version', skill_id: skill.id, name: 'quarterly', description: 'Writes quarterly reports' });
      const versions = [];
      for await (const item of alpha.skills.versions.list(skill.id)) versions.push(item.id);
      expect(versions).toEqual([version.id, skill.latest_version_id]);

      // Another project's key: not listed, and every path below it is the vendor's 404.
      const betaListed = [];
      for await (const item of beta.skills.list()) betaListed.push(item.id);
      expect(betaListed).not.toContain(skill.id);
      expect(betaListed).toContain('pptx');
      for (const call of [
        beta.skills.retrieve(skill.id),
        beta.skills.delete(skill.id),
        beta.skills.versions.list(skill.id),
        beta.skills.versions.create(skill.id, { files: await skillFiles('quarterly') }),
        beta.skills.versions.delete(version.id, { skill_id: skill.id }),
      ]) {
        const refused = await rejectionOf(call);
        expect(refused).toBeInstanceOf(Anthropic.NotFoundError);
        expect((refused as InstanceType<typeof Anthropic.NotFoundError>).message).toContain(`Skill not found: ${skill.id}`);
      }
      // Nor may its messages use the skill in a container.
      const used = await fetch(`${running.gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': (beta as unknown as { apiKey: string }).apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude', max_tokens: 10, container: { skills: [{ type: 'custom', skill_id: skill.id }] }, messages: [{ role: 'user', content: 'use it' }] }),
      });
      expect(used.status).toBe(404);

      // The owner deletes its versions, then the skill; the beta SDK namespace reaches the same routes.
      for (const id of versions) await alpha.skills.versions.delete(id, { skill_id: skill.id });
      expect(await alpha.beta.skills.delete(skill.id)).toEqual({ id: skill.id, type: 'skill_deleted' });
      expect(await rejectionOf(alpha.skills.retrieve(skill.id))).toBeInstanceOf(Anthropic.NotFoundError);
    });

    it("fills a page the filter left short from Anthropic's next pages, by its page token, and pages on from there", async () => {
      const alpha = anthropic(await newKey('skills-paging-alpha'));
      const beta = anthropic(await newKey('skills-paging-beta'));
      const own = await alpha.skills.create({ files: await skillFiles('paging-own') });
      // Newer than alpha's, so first in Anthropic's list: a page of two holds only beta's.
      for (const name of ['paging-1', 'paging-2', 'paging-3']) await beta.skills.create({ files: await skillFiles(name) });
      const first = await alpha.skills.list({ limit: 2 });
      expect(first.data.map((skill) => skill.id)).toEqual([own.id, 'pptx', 'xlsx']);
      expect(first.next_page).toEqual(expect.any(String));
      const all = [];
      for await (const skill of alpha.skills.list({ limit: 2 })) all.push(skill.id);
      expect(all).toEqual([own.id, 'pptx', 'xlsx', 'docx', 'pdf']);
    });

    it("answers the vendor's errors in its envelope, and refuses a key without the Anthropic alias", async () => {
      const key = await newKey('skills-errors');
      const refused = await rejectionOf(anthropic(key).skills.create({ files: [await toFile(Buffer.from('no frontmatter'), 'notes/README.md')] }));
      expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
      expect((refused as InstanceType<typeof Anthropic.BadRequestError>).message).toContain('SKILL.md');

      const gptOnly = await newKey('skills-gpt-only', ['gpt']);
      expect(await rejectionOf(anthropic(gptOnly).skills.list())).toBeInstanceOf(Anthropic.PermissionDeniedError);
    });
  });

  describe("the OpenAI fake's Responses API", () => {
    const tools: OpenAI.Responses.FunctionTool[] = [
      { type: 'function', name: 'get_weather', description: 'Weather now', parameters: schema, strict: true },
      { type: 'function', name: 'get_time', description: 'Time now', parameters: { type: 'object', properties: {}, additionalProperties: false }, strict: true },
    ];

    it('answers a forced tool_choice with a completed function_call whose arguments match the parameters, plain and streamed', async () => {
      const gpt = sdkClient(running.gateway);
      const forced = await gpt.responses.create({ model: 'gpt', input: 'What is the weather?', tools, tool_choice: { type: 'function', name: 'get_weather' } });
      const call = forced.output[0];
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
      if (call?.type !== 'function_call') throw new Error('no function call');
      expect(matchesSchema(JSON.parse(call.arguments))).toBe(true);

      const stream = gpt.responses.stream({ model: 'gpt', input: 'Any tool', tools, tool_choice: 'required' });
      const types: string[] = [];
      stream.on('event', (event) => types.push(event.type));
      const final = await stream.finalResponse();
      expect(final.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
      expect(types).toEqual(expect.arrayContaining(['response.function_call_arguments.delta', 'response.function_call_arguments.done']));

      // A tool loop: the function's output back, the answer is text.
      const second = await gpt.responses.create({
        model: 'gpt',
        tools,
        input: [{ role: 'user', content: 'What is the weather?' }, call, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
      });
      expect(second.output_text).toBe('fake answer from gpt-4o-mini');
    });

    it('calls a tool the input asks for by name under tool_choice auto, and answers text otherwise', async () => {
      const gpt = sdkClient(running.gateway);
      const asked = await gpt.responses.create({ model: 'gpt', input: 'Please use get_time now', tools });
      expect(asked.output[0]).toMatchObject({ type: 'function_call', name: 'get_time', arguments: '{}', status: 'completed' });
      const plain = await gpt.responses.create({ model: 'gpt', input: 'Just say hello', tools });
      expect(plain.output_text).toBe('fake answer from gpt-4o-mini');
    });
  });
});
