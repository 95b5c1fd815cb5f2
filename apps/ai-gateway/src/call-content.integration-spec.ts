// Calls' content in the call log (general_settings.store_prompts_in_spend_logs, LiteLLM's name): off
// by default, and then no record holds any; on, a call's messages as they went upstream (after a
// guardrail masked them) and its answer as the client got it, through the official SDKs against the
// fake providers, read back from /spend/logs and from call_records itself.
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { Client } from 'pg';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { asMaster, eventually, MASTER_KEY, rejectionOf, sdkClient, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

type Gateway = RunningService<AiGatewayConfig>;

interface Content {
  messages: unknown;
  response?: unknown;
  streamed?: boolean;
  truncated: boolean;
}

interface SpendLog {
  request_id: string;
  status: string;
  cache_hit: string;
  content?: Content;
}

const models = (fakeUrl: string) => `model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-5, api_base: ${fakeUrl}/anthropic, api_key: sk-upstream }
  - model_name: broken
    litellm_params: { model: openai/fail-503, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
router_settings:
  num_retries: 0
guardrails:
  - guardrail_name: mask-email
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_call
      patterns:
        - { pattern_type: prebuilt, pattern_name: email, action: MASK }
`;

const marker = () => `m${randomUUID().slice(0, 8)}`;

/** The call's record as /spend/logs lists it, once this replica's flush has written it. */
async function recordOf(gateway: Gateway, callId: string | null): Promise<SpendLog> {
  expect(callId).toBeTruthy();
  const logs = await eventually(
    async () => {
      const response = await fetch(`${gateway.url}/spend/logs?summarize=false&request_id=${callId}`, { headers: asMaster });
      expect(response.status).toBe(200);
      return (await response.json()) as SpendLog[];
    },
    (list) => list.length === 1,
  );
  expect(logs).toHaveLength(1);
  return logs[0] as SpendLog;
}

/** call_records.content as PostgreSQL holds it. */
async function storedContent(database: TestDatabase, callId: string): Promise<unknown> {
  const pg = new Client({ connectionString: database.url });
  await pg.connect();
  try {
    const { rows } = await pg.query('select content from call_records where id = $1', [callId]);
    expect(rows).toHaveLength(1);
    return (rows[0] as { content: unknown }).content;
  } finally {
    await pg.end();
  }
}

async function callLogSettings(gateway: Gateway): Promise<Record<string, unknown>> {
  const response = await fetch(`${gateway.url}/api/v1/call-log/settings`, { headers: asMaster });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** The text of a chat completion stream's content deltas, from the events as sent (`data: {…}` lines). */
function chatStreamText(events: string): string {
  let text = '';
  for (const [, data] of events.matchAll(/^data: (\{.*\})$/gm)) {
    const chunk = JSON.parse(data ?? '{}') as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

describe('call content in the call log', () => {
  let fake: FakeProvidersProcess;
  const databases: TestDatabase[] = [];
  const gateways: Gateway[] = [];

  const start = async (settings: string): Promise<{ gateway: Gateway; database: TestDatabase }> => {
    const database = await createTestDatabase();
    databases.push(database);
    const gateway = await startTestGateway(database, writeConfig(`${models(fake.url)}${settings}`));
    gateways.push(gateway);
    return { gateway, database };
  };

  beforeAll(async () => {
    fake = await startFake();
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    for (const database of databases) await database.drop();
    await fake?.stop();
  });

  describe('off by default', () => {
    let gateway: Gateway;
    let database: TestDatabase;
    beforeAll(async () => ({ gateway, database } = await start('')));

    it('keeps no content: the record has none, call_records.content is null, and the settings say why', async () => {
      const word = marker();
      const { response } = await sdkClient(gateway)
        .chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: `hello ${word}` }] })
        .withResponse();
      const callId = response.headers.get('x-arbor-call-id');
      const record = await recordOf(gateway, callId);
      expect(record.status).toBe('success');
      expect(record).not.toHaveProperty('content');
      expect(await storedContent(database, callId as string)).toBeNull();
      expect(await callLogSettings(gateway)).toEqual({ content_kept: false, content_off_by: 'store_prompts_in_spend_logs', max_field_chars: 16384 });
    });
  });

  describe('general_settings.store_prompts_in_spend_logs: true', () => {
    let gateway: Gateway;
    let database: TestDatabase;
    let openai: OpenAI;
    let anthropic: Anthropic;
    beforeAll(async () => {
      ({ gateway, database } = await start(`general_settings:
  store_prompts_in_spend_logs: true
litellm_settings:
  cache: true
  cache_params: { type: local }
`));
      openai = sdkClient(gateway);
      anthropic = new Anthropic({ apiKey: MASTER_KEY, baseURL: gateway.url, maxRetries: 0 });
    });

    it('says so to the call log', async () => {
      expect(await callLogSettings(gateway)).toEqual({ content_kept: true, content_off_by: null, max_field_chars: 16384 });
      expect((await fetch(`${gateway.url}/api/v1/call-log/settings`)).status).toBe(401);
    });

    it('keeps a chat completion as sent upstream (after the guardrail masked it) and its answer as the client got it', async () => {
      const word = marker();
      const messages = [
        { role: 'system' as const, content: 'Be brief.' },
        { role: 'user' as const, content: `Write to me at jane@example.com ${word}` },
      ];
      const { data: answer, response } = await openai.chat.completions
        .create({ model: 'fast', messages, guardrails: ['mask-email'] } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      const callId = response.headers.get('x-arbor-call-id') as string;
      const record = await recordOf(gateway, callId);
      expect(record.content).toEqual({
        messages: { messages: [messages[0], { role: 'user', content: `Write to me at [EMAIL_REDACTED] ${word}` }] },
        response: JSON.parse(JSON.stringify(answer)),
        streamed: false,
        truncated: false,
      });
      expect(JSON.stringify(record.content)).not.toContain('jane@example.com');
      expect(await storedContent(database, callId)).toEqual(record.content);
    });

    it('keeps a streamed chat completion as the events the client got', async () => {
      const word = marker();
      const { data: stream, response } = await openai.chat.completions
        .create({ model: 'fast', stream: true, messages: [{ role: 'user', content: `stream ${word}` }] })
        .withResponse();
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).not.toBe('');
      const record = await recordOf(gateway, response.headers.get('x-arbor-call-id'));
      const content = record.content as Content;
      expect(content.messages).toEqual({ messages: [{ role: 'user', content: `stream ${word}` }] });
      expect(content.streamed).toBe(true);
      expect(content.truncated).toBe(false);
      expect(typeof content.response).toBe('string');
      expect(chatStreamText(content.response as string)).toBe(text);
      expect(content.response as string).toMatch(/data: \[DONE\]\s*$/);
    });

    it("keeps Anthropic's messages with their system prompt, plain and streamed", async () => {
      const word = marker();
      const request = { model: 'claude', max_tokens: 50, system: 'You are terse.', messages: [{ role: 'user' as const, content: `hi ${word}` }] };
      const { data: message, response } = await anthropic.messages.create(request).withResponse();
      const record = await recordOf(gateway, response.headers.get('x-arbor-call-id'));
      expect(record.content).toEqual({
        messages: { system: 'You are terse.', messages: request.messages },
        response: JSON.parse(JSON.stringify(message)),
        streamed: false,
        truncated: false,
      });

      const streamed = anthropic.messages.stream({ ...request, messages: [{ role: 'user', content: `stream ${word}` }] });
      const final = await streamed.finalMessage();
      const text = final.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      const callId = (await streamed.withResponse()).response.headers.get('x-arbor-call-id');
      const streamedRecord = await recordOf(gateway, callId);
      const content = streamedRecord.content as Content;
      expect(content.streamed).toBe(true);
      expect(content.response as string).toContain('event: message_stop');
      const deltas = [...(content.response as string).matchAll(/"text_delta","text":"((?:[^"\\]|\\.)*)"/g)].map(([, part]) => JSON.parse(`"${part}"`) as string);
      expect(deltas.join('')).toBe(text);
    });

    it("keeps a Responses API call's input and instructions, and the response under the gateway's id", async () => {
      const word = marker();
      const { data: created, response } = await openai.responses.create({ model: 'fast', instructions: 'Answer in one line.', input: `tell me ${word}` }).withResponse();
      const record = await recordOf(gateway, response.headers.get('x-arbor-call-id'));
      const content = record.content as Content & { response: { id: string; output: unknown } };
      expect(content.messages).toEqual({ instructions: 'Answer in one line.', input: `tell me ${word}` });
      expect(content.response.id).toBe(created.id);
      expect(content.response.output).toEqual(JSON.parse(JSON.stringify(created.output)));
      expect(content.truncated).toBe(false);
    });

    it('keeps the messages of a failed call but no answer', async () => {
      const word = marker();
      const error = await rejectionOf(openai.chat.completions.create({ model: 'broken', messages: [{ role: 'user', content: `fail ${word}` }] }));
      expect(error).toBeInstanceOf(OpenAI.APIError);
      const callId = (error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-arbor-call-id') ?? null;
      const record = await recordOf(gateway, callId);
      expect(record.status).toBe('failure');
      expect(record.content).toEqual({ messages: { messages: [{ role: 'user', content: `fail ${word}` }] }, truncated: false });
    });

    it('keeps nothing for a cache hit, which reached no upstream', async () => {
      const request = { model: 'fast', messages: [{ role: 'user' as const, content: `cached ${marker()}` }] };
      const first = await openai.chat.completions.create(request).withResponse();
      const second = await openai.chat.completions.create(request).withResponse();
      expect(second.response.headers.get('x-arbor-cache-hit')).toBe('true');
      expect((await recordOf(gateway, first.response.headers.get('x-arbor-call-id'))).content).toBeDefined();
      const hit = await recordOf(gateway, second.response.headers.get('x-arbor-call-id'));
      expect(hit.cache_hit).toBe('True');
      expect(hit).not.toHaveProperty('content');
    });

    it('cuts each field at 16 384 characters and says it was truncated', async () => {
      const long = `${marker()} ${'long prompt '.repeat(2_000)}`;
      const { data: answer, response } = await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: long }] }).withResponse();
      const record = await recordOf(gateway, response.headers.get('x-arbor-call-id'));
      const content = record.content as Content;
      expect(content.truncated).toBe(true);
      expect(typeof content.messages).toBe('string');
      expect((content.messages as string).length).toBe(16_384);
      expect(content.messages as string).toBe(JSON.stringify({ messages: [{ role: 'user', content: long }] }).slice(0, 16_384));
      // The fake's answer echoes the long prompt (fake_echo): it is cut too, as the client got it.
      expect(content.response).toBe(JSON.stringify(answer).slice(0, 16_384));
    });

    it("never keeps the caller's key", async () => {
      const created = await fetch(`${gateway.url}/api/v1/keys`, { method: 'POST', headers: asMaster, body: JSON.stringify({ project: 'alpha' }) });
      const { key } = (await created.json()) as { key: string };
      const { response } = await sdkClient(gateway, key)
        .chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: `keyed ${marker()}` }] })
        .withResponse();
      const callId = response.headers.get('x-arbor-call-id') as string;
      await recordOf(gateway, callId);
      const stored = (await storedContent(database, callId)) as { messages: unknown; response: { fake_echo?: unknown } };
      expect(JSON.stringify(stored)).toContain('keyed');
      expect(JSON.stringify(stored)).not.toContain(key);
      // The fake echoes the upstream key in its answer (fake_echo), which the client got; nothing else holds it.
      delete stored.response.fake_echo;
      expect(JSON.stringify(stored)).not.toContain('sk-upstream');
    });
  });

  it('keeps nothing when litellm_settings.turn_off_message_logging is on, whatever store_prompts_in_spend_logs says', async () => {
    const { gateway, database } = await start(`general_settings:
  store_prompts_in_spend_logs: true
litellm_settings:
  turn_off_message_logging: true
`);
    const { response } = await sdkClient(gateway)
      .chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: `private ${marker()}` }] })
      .withResponse();
    const callId = response.headers.get('x-arbor-call-id') as string;
    expect(await recordOf(gateway, callId)).not.toHaveProperty('content');
    expect(await storedContent(database, callId)).toBeNull();
    expect(await callLogSettings(gateway)).toMatchObject({ content_kept: false, content_off_by: 'turn_off_message_logging' });
  });

  it('stops the start when store_prompts_in_spend_logs is not a boolean, naming the setting', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    await expect(startTestGateway(database, writeConfig(`${models(fake.url)}general_settings:\n  store_prompts_in_spend_logs: "yes please"\n`))).rejects.toThrow(
      /general_settings\.store_prompts_in_spend_logs: must be true or false/,
    );
  });
});
