// Guardrails as a LiteLLM user configures them (LiteLLM's content filter documentation, its config
// and requests unchanged), through the official OpenAI and Anthropic SDKs; the fake upstream's
// request log shows what reached the provider.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { type GatewayOnFakes, lastRequestWith, MASTER_KEY, rejectionOf, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

/**
 * A word to find a call by in what the fake received: a UUID with its digits spelt as letters, for a
 * UUID's digits now and then form a valid card number (d5-4545-4556-9937-968 is one), which the
 * default-on guardrail below would mask out of the text the test then looks for.
 */
const traceWord = () => randomUUID().replace(/\d/g, (digit) => 'ghijklmnop'.charAt(Number(digit)));

// LiteLLM's "PII Protection" example, with a guardrail that is on for every call beside it.
const config = (fakeUrl: string) => `model_list:
  - model_name: gpt-3.5-turbo
    litellm_params:
      model: openai/gpt-3.5-turbo
      api_base: ${fakeUrl}/v1
      api_key: sk-upstream
  - model_name: claude
    litellm_params:
      model: anthropic/claude-sonnet-4-5
      api_base: ${fakeUrl}/anthropic
      api_key: sk-upstream
  - model_name: images
    litellm_params: { model: openai/gpt-image-1, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
  - model_name: tts
    litellm_params: { model: openai/tts-1, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
  - model_name: whisper
    litellm_params: { model: openai/whisper-1, api_base: ${fakeUrl}/v1, api_key: sk-upstream }

guardrails:
  - guardrail_name: "content-filter-pre"
    litellm_params:
      guardrail: litellm_content_filter
      mode: "pre_call"

      # Prebuilt patterns for common PII
      patterns:
        - pattern_type: "prebuilt"
          pattern_name: "us_ssn"
          action: "BLOCK"

        - pattern_type: "prebuilt"
          pattern_name: "email"
          action: "MASK"

      # Custom blocked keywords
      blocked_words:
        - keyword: "confidential"
          action: "BLOCK"
          description: "Sensitive internal information"
  - guardrail_name: "always-cards"
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_call
      default_on: true
      patterns:
        - pattern_type: prebuilt
          pattern_name: credit_card
          action: MASK
        - pattern_type: regex
          pattern: '(?i)project-\\d{6}'
          name: project_code
          action: BLOCK
`;

describe('guardrails (litellm_content_filter, pre_call)', () => {
  let running: GatewayOnFakes;
  let anthropic: Anthropic;

  beforeAll(async () => {
    running = await startGatewayOnFakes(config);
    anthropic = new Anthropic({ apiKey: MASTER_KEY, baseURL: running.gateway.url, maxRetries: 0 });
  });

  afterAll(() => stopGatewayOnFakes(running));

  const chat = (content: string, extra: Record<string, unknown> = {}) =>
    running.client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content }], ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming);

  it("refuses LiteLLM's SSN example with 400 guardrail_violation naming the guardrail and the pattern, never the number, and nothing reaches the upstream", async () => {
    const marker = traceWord();
    const error = await rejectionOf(chat(`My SSN is 123-45-6789 ${marker}`, { guardrails: ['content-filter-pre'] }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const refused = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(refused.code).toBe('guardrail_violation');
    expect(refused.message).toContain('content-filter-pre');
    expect(refused.message).toContain('us_ssn');
    expect(refused.message).not.toContain('123-45-6789');
    await expect(lastRequestWith(running.fake, marker)).rejects.toThrow('no request');
  });

  it("masks LiteLLM's e-mail example before the upstream sees it, and sends no guardrails field on", async () => {
    const marker = traceWord();
    const answer = await chat(`Contact me at john@example.com ${marker}`, { guardrails: ['content-filter-pre'] });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const seen = await lastRequestWith(running.fake, marker);
    expect(seen.body).toContain(`Contact me at [EMAIL_REDACTED] ${marker}`);
    expect(seen.body).not.toContain('john@example.com');
    expect(seen.json).not.toHaveProperty('guardrails');
  });

  it('refuses a blocked keyword, and leaves calls that name no guardrail to the default-on ones only', async () => {
    const blocked = await rejectionOf(chat('This is confidential', { guardrails: ['content-filter-pre'] }));
    expect((blocked as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    expect((blocked as Error).message).not.toContain('confidential');
    const marker = traceWord();
    await chat(`confidential, mail john@example.com ${marker}`);
    expect((await lastRequestWith(running.fake, marker)).body).toContain('john@example.com');
  });

  it('runs a default_on guardrail on every call: a valid card number is masked, a number failing Luhn is left, a case-insensitive regex blocks', async () => {
    const marker = traceWord();
    await chat(`pay with 4111 1111 1111 1111, order 4111 1111 1111 1112 ${marker}`);
    const seen = await lastRequestWith(running.fake, marker);
    expect(seen.body).toContain('pay with [CREDIT_CARD_REDACTED], order 4111 1111 1111 1112');
    const refused = await rejectionOf(chat('about PROJECT-123456'));
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    expect((refused as Error).message).toContain('project_code');
  });

  it('finds the text of Anthropic Messages (system, messages, tool results) and refuses in their envelope', async () => {
    const marker = traceWord();
    await anthropic.messages.create({
      model: 'claude',
      max_tokens: 64,
      system: `Reply to jane@example.org ${marker}`,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'look up alice@example.com' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found bob@example.net' }] },
      ],
      guardrails: ['content-filter-pre'],
    } as Anthropic.MessageCreateParamsNonStreaming);
    const seen = await lastRequestWith(running.fake, marker);
    expect(seen.body).not.toMatch(/jane@|alice@|bob@/);
    expect(seen.body.match(/\[EMAIL_REDACTED\]/g)).toHaveLength(3);
    const error = await rejectionOf(
      anthropic.messages.create({
        model: 'claude',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'My SSN is 123-45-6789' }],
        guardrails: ['content-filter-pre'],
      } as Anthropic.MessageCreateParamsNonStreaming),
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(((error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect((error as Error).message).toContain('us_ssn');
  });

  it('checks the prompt of an image generation and the text of speech as it checks chat', async () => {
    const refused = await rejectionOf(
      running.client.images.generate({ model: 'images', prompt: 'a poster of SSN 123-45-6789', guardrails: ['content-filter-pre'] } as OpenAI.ImageGenerateParamsNonStreaming),
    );
    expect(refused).toMatchObject({ status: 400, code: 'guardrail_violation' });
    const marker = traceWord();
    const speech = await running.client.audio.speech.create({
      model: 'tts',
      voice: 'alloy',
      input: `write to ops@example.com ${marker}`,
      guardrails: ['content-filter-pre'],
    } as OpenAI.Audio.SpeechCreateParams);
    await speech.arrayBuffer();
    expect((await lastRequestWith(running.fake, marker)).json['input']).toBe(`write to [EMAIL_REDACTED] ${marker}`);
  });

  it("checks an image edit's prompt and a transcription's prompt (form fields): masked in the form the upstream gets, refused before it sees any", async () => {
    const image = () => toFile(Buffer.alloc(100, 1), 'in.png', { type: 'image/png' });
    const marker = traceWord();
    await running.client.images.edit({
      model: 'images',
      image: await image(),
      prompt: `add ops@example.com to the sign ${marker}`,
      guardrails: ['content-filter-pre'],
    } as OpenAI.ImageEditParamsNonStreaming);
    const seen = await lastRequestWith(running.fake, marker);
    expect(seen.json['prompt']).toBe(`add [EMAIL_REDACTED] to the sign ${marker}`);
    expect(seen.json['image']).toMatchObject({ filename: 'in.png', bytes: 100 });
    expect(Object.keys(seen.json).filter((name) => name.startsWith('guardrails'))).toEqual([]);
    const blocked = traceWord();
    const refused = await rejectionOf(
      running.client.images.edit({
        model: 'images',
        image: await image(),
        prompt: `SSN 123-45-6789 ${blocked}`,
        guardrails: ['content-filter-pre'],
      } as OpenAI.ImageEditParamsNonStreaming),
    );
    expect(refused).toMatchObject({ status: 400, code: 'guardrail_violation' });
    expect((refused as Error).message).toContain('us_ssn');
    await expect(lastRequestWith(running.fake, blocked)).rejects.toThrow('no request');
    const spoken = traceWord();
    await running.client.audio.transcriptions.create({
      model: 'whisper',
      file: await toFile(Buffer.alloc(16_000, 3), 'call.mp3', { type: 'audio/mpeg' }),
      prompt: `names: ann@example.com ${spoken}`,
      guardrails: ['content-filter-pre'],
    } as OpenAI.Audio.TranscriptionCreateParamsNonStreaming);
    expect((await lastRequestWith(running.fake, spoken)).json['prompt']).toBe(`names: [EMAIL_REDACTED] ${spoken}`);
  });

  it("checks the model calls of the vendor pass-throughs (/openai, /anthropic) as those of /v1: masked before the upstream, refused in the family's envelope", async () => {
    const openai = new OpenAI({ apiKey: MASTER_KEY, baseURL: `${running.gateway.url}/openai/v1`, maxRetries: 0 });
    const marker = traceWord();
    await openai.chat.completions.create({
      model: 'gpt-3.5-turbo',
      messages: [{ role: 'user', content: `pay with 4111 1111 1111 1111, mail ann@example.com ${marker}` }],
      guardrails: ['content-filter-pre'],
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const seen = await lastRequestWith(running.fake, marker);
    expect(seen.path).toBe('/v1/chat/completions');
    // The named guardrail and the default_on one alike.
    expect(seen.body).toContain(`pay with [CREDIT_CARD_REDACTED], mail [EMAIL_REDACTED] ${marker}`);
    expect(seen.json).not.toHaveProperty('guardrails');
    const blocked = traceWord();
    const refused = await rejectionOf(
      openai.chat.completions.create({
        model: 'gpt-3.5-turbo',
        messages: [{ role: 'user', content: `SSN 123-45-6789 ${blocked}` }],
        guardrails: ['content-filter-pre'],
      } as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    expect(refused).toMatchObject({ status: 400, code: 'guardrail_violation' });
    await expect(lastRequestWith(running.fake, blocked)).rejects.toThrow('no request');
    const anthropicPassThrough = new Anthropic({ apiKey: MASTER_KEY, baseURL: `${running.gateway.url}/anthropic`, maxRetries: 0 });
    const error = await rejectionOf(
      anthropicPassThrough.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 64,
        messages: [{ role: 'user', content: `about PROJECT-123456 ${blocked}` }],
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(((error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { type: string; message: string } }).error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringContaining('project_code'),
    });
    await expect(lastRequestWith(running.fake, blocked)).rejects.toThrow('no request');
    // What is no model call of a family goes on as before.
    const files = await fetch(`${running.gateway.url}/openai/v1/files`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
    expect(files.status).toBe(200);
  });

  it('finds the text of a Responses API call (instructions and input items), bridged to a Claude alias too', async () => {
    const marker = traceWord();
    await running.client.responses.create({
      model: 'gpt-3.5-turbo',
      instructions: `Write to ops@example.com ${marker}`,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'cc dev@example.com' }] }],
      guardrails: ['content-filter-pre'],
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    const native = await lastRequestWith(running.fake, marker);
    expect(native.body).not.toMatch(/ops@|dev@/);
    const bridged = traceWord();
    await running.client.responses.create({
      model: 'claude',
      input: `mail ops@example.com ${bridged}`,
      metadata: { guardrails: ['content-filter-pre'] },
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    const seen = await lastRequestWith(running.fake, bridged);
    expect(seen.body).toContain(`mail [EMAIL_REDACTED] ${bridged}`);
    expect(seen.body).not.toContain('guardrails');
  });

  it('masks the earlier turns a stored conversation sends again (previous_response_id on a Claude alias)', async () => {
    const first = await running.client.responses.create({
      model: 'claude',
      input: 'remember carol@example.com',
      guardrails: ['content-filter-pre'],
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    const marker = traceWord();
    await running.client.responses.create({
      model: 'claude',
      previous_response_id: first.id,
      input: `and now? ${marker}`,
      guardrails: ['content-filter-pre'],
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    const seen = await lastRequestWith(running.fake, marker);
    expect(seen.body).toContain('remember [EMAIL_REDACTED]');
    expect(seen.body).not.toContain('carol@example.com');
  });

  it("runs the guardrails a key carries on every call of that key (the admin API and LiteLLM's /key/generate), and refuses a key naming an unknown one", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${running.gateway.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await post('/api/v1/keys', { project: 'alpha', guardrails: ['content-filter-pre'] });
    expect(created.status).toBe(201);
    const adminKey = (await created.json()) as { key: string; guardrails: string[] };
    expect(adminKey.guardrails).toEqual(['content-filter-pre']);
    const generated = await post('/key/generate', { team_id: 'alpha', guardrails: ['content-filter-pre'] });
    expect(generated.status).toBe(200);
    const liteLlmKey = (await generated.json()) as { key: string; guardrails: string[] };
    expect(liteLlmKey.guardrails).toEqual(['content-filter-pre']);
    for (const key of [adminKey.key, liteLlmKey.key]) {
      const client = new OpenAI({ apiKey: key, baseURL: `${running.gateway.url}/v1`, maxRetries: 0 });
      const marker = traceWord();
      await client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: `mail john@example.com ${marker}` }] });
      expect((await lastRequestWith(running.fake, marker)).body).toContain(`mail [EMAIL_REDACTED] ${marker}`);
      const refused = await rejectionOf(client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'SSN 123-45-6789' }] }));
      expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    }
    // The refusals are in the call log (LiteLLM's /spend/logs of the key), as metadata only.
    const logs = await fetch(`${running.gateway.url}/spend/logs?api_key=${adminKey.key}`, { headers: { authorization: `Bearer ${MASTER_KEY}` } });
    const records = (await logs.json()) as { status: string; spend: number; metadata: { status_code: number; error_code: string | null } }[];
    expect(records.map((record) => [record.status, record.metadata.status_code, record.metadata.error_code, record.spend])).toEqual([
      ['failure', 400, 'guardrail_violation', 0],
      ['success', 200, null, expect.any(Number)],
    ]);
    expect(JSON.stringify(records)).not.toContain('123-45-6789');
    const unknown = await post('/api/v1/keys', { project: 'alpha', guardrails: ['nope'] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'unknown_guardrail',
      message: expect.stringContaining('"content-filter-pre"'),
    });
  });

  it("runs the guardrails a project carries (LiteLLM's team guardrails) on every call of its keys, and not on other projects' keys", async () => {
    const admin = async (path: string, body: unknown) => {
      const response = await fetch(`${running.gateway.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    expect(await admin('/team/update', { team_id: 'guarded', guardrails: ['content-filter-pre'] })).toMatchObject({
      status: 200,
      body: { data: { guardrails: ['content-filter-pre'] } },
    });
    expect(await admin('/team/update', { team_id: 'guarded', guardrails: ['nope'] })).toMatchObject({ status: 400, body: { error: { code: 'unknown_guardrail' } } });
    const keyOf = async (team: string) =>
      new OpenAI({ apiKey: (await admin('/key/generate', { team_id: team })).body['key'] as string, baseURL: `${running.gateway.url}/v1`, maxRetries: 0 });
    const [guarded, other] = [await keyOf('guarded'), await keyOf('unguarded')];
    const ask = (client: OpenAI, content: string) => client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content }] });
    expect(await rejectionOf(ask(guarded, 'SSN 123-45-6789'))).toMatchObject({ status: 400, code: 'guardrail_violation' });
    const marker = traceWord();
    await ask(guarded, `mail ann@example.com ${marker}`);
    expect((await lastRequestWith(running.fake, marker)).body).toContain(`mail [EMAIL_REDACTED] ${marker}`);
    const unguarded = traceWord();
    await ask(other, `mail ann@example.com ${unguarded}`);
    expect((await lastRequestWith(running.fake, unguarded)).body).toContain('ann@example.com');
    // Taken off the project, its keys' calls pass again.
    await admin('/team/update', { team_id: 'guarded', guardrails: [] });
    await expect(ask(guarded, 'SSN 123-45-6789')).resolves.toBeDefined();
  });

  it('counts the calls each guardrail refused and masked in the metrics', async () => {
    const count = async (guardrail: string, action: string) => {
      const text = await (await fetch(`${running.gateway.url}/metrics`)).text();
      return Number(new RegExp(`arbor_aigw_guardrail_actions_total\\{[^}]*guardrail="${guardrail}"[^}]*action="${action}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const [blocked, masked] = [await count('content-filter-pre', 'block'), await count('content-filter-pre', 'mask')];
    await rejectionOf(chat('SSN 123-45-6789', { guardrails: ['content-filter-pre'] }));
    await chat('mail a@example.com and b@example.com', { guardrails: ['content-filter-pre'] });
    expect(await count('content-filter-pre', 'block')).toBe(blocked + 1);
    expect(await count('content-filter-pre', 'mask')).toBe(masked + 1);
  });

  it('refuses a guardrail name the config does not have, naming those it has', async () => {
    const error = await rejectionOf(chat('hello', { guardrails: ['no-such-guardrail'] }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('"no-such-guardrail"');
    expect((error as Error).message).toContain('"content-filter-pre"');
  });
});

describe("guardrails from files (LiteLLM's blocked_words_file and custom category files)", () => {
  let running: GatewayOnFakes;

  beforeAll(async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'aigw-guardrail-files-'));
    const keywords = path.join(directory, 'sensitive_keywords.yaml');
    // As LiteLLM's content-filter documentation writes them.
    writeFileSync(
      keywords,
      `blocked_words:
  - keyword: "project_apollo"
    action: "BLOCK"
    description: "Confidential project codename"
  - keyword: "internal_api"
    action: "MASK"
    description: "Internal API references"
`,
    );
    const category = path.join(directory, 'custom.yaml');
    writeFileSync(
      category,
      `category_name: "harmful_self_harm"
description: "Custom self-harm detection"
default_action: "BLOCK"

keywords:
  - keyword: "suicide"
    severity: "high"
  - keyword: "harm myself"
    severity: "high"

exceptions:
  - "suicide prevention"
  - "mental health"
`,
    );
    running = await startGatewayOnFakes(
      (fakeUrl) => `model_list:
  - model_name: gpt-3.5-turbo
    litellm_params:
      model: openai/gpt-3.5-turbo
      api_base: ${fakeUrl}/v1
      api_key: sk-upstream

guardrails:
  - guardrail_name: "keyword-file-filter"
    litellm_params:
      guardrail: litellm_content_filter
      mode: "pre_call"
      default_on: true
      blocked_words_file: "${keywords}"
      categories:
        - category: "harmful_self_harm"
          enabled: true
          action: "BLOCK"
          severity_threshold: "medium"
          category_file: "${category}"
`,
    );
  });

  afterAll(() => stopGatewayOnFakes(running));

  const chat = (content: string) => running.client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content }] });

  it("refuses the file's blocked keyword, masks its masked one, and refuses the category's keywords outside its exceptions, naming the category", async () => {
    expect(await rejectionOf(chat('status of project_apollo?'))).toMatchObject({ status: 400, code: 'guardrail_violation' });
    const marker = traceWord();
    await chat(`call the internal_api please ${marker}`);
    expect((await lastRequestWith(running.fake, marker)).body).toContain(`call the [KEYWORD_REDACTED] please ${marker}`);
    const refused = await rejectionOf(chat('I want to harm myself'));
    expect(refused).toMatchObject({ status: 400, code: 'guardrail_violation' });
    expect((refused as Error).message).toContain('harmful_self_harm category detected');
    expect((refused as Error).message).not.toContain('harm myself');
    const allowed = traceWord();
    await chat(`Where can I read about suicide prevention? ${allowed}`);
    expect((await lastRequestWith(running.fake, allowed)).body).toContain('suicide prevention');
  });
});
