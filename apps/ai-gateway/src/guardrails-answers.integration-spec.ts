// Guardrails on what the model answers (post_call, during_call), as LiteLLM's content-filter
// documentation configures them, through the official OpenAI and Anthropic SDKs. The fake upstream
// answers what the last user message tells it to say (`say: …`), streamed in pieces of five
// characters, so that a pattern arrives split over chunks as a model's tokens split it.
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { type GatewayOnFakes, lastRequestWith, MASTER_KEY, rejectionOf, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

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
  - model_name: whisper
    litellm_params: { model: openai/whisper-1, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
  - model_name: transcribe
    litellm_params: { model: openai/gpt-4o-transcribe, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
  - model_name: moderation
    litellm_params:
      model: openai/omni-moderation-latest
      api_base: ${fakeUrl}/v1
      api_key: sk-upstream

guardrails:
  - guardrail_name: "content-filter-post"
    litellm_params:
      guardrail: litellm_content_filter
      mode: "post_call"
      patterns:
        - pattern_type: "prebuilt"
          pattern_name: "email"
          action: "MASK"
        - pattern_type: "prebuilt"
          pattern_name: "aws_access_key"
          action: "BLOCK"
      blocked_words:
        - keyword: "project falcon"
          action: "BLOCK"
  - guardrail_name: "content-filter-during"
    litellm_params:
      guardrail: litellm_content_filter
      mode: "during_call"
      patterns:
        - pattern_type: "prebuilt"
          pattern_name: "us_ssn"
          action: "BLOCK"
        - pattern_type: "prebuilt"
          pattern_name: "email"
          action: "MASK"
  - guardrail_name: "openai-moderation"
    litellm_params:
      guardrail: openai_moderation
      mode: [pre_call, post_call]
      model: moderation
  - guardrail_name: "moderation-answers"
    litellm_params:
      guardrail: openai_moderation
      mode: post_call
      model: moderation
  - guardrail_name: "moderation-strict"
    litellm_params:
      guardrail: openai_moderation
      mode: pre_call
      model: moderation
      categories: [violence]
      threshold: 0.5
`;

const SAID = 'Write to john.doe@example.com today, or to ops@example.org tomorrow.';
const MASKED = 'Write to [EMAIL_REDACTED] today, or to [EMAIL_REDACTED] tomorrow.';

describe('guardrails on answers (litellm_content_filter, post_call and during_call)', () => {
  let running: GatewayOnFakes;
  let anthropic: Anthropic;

  beforeAll(async () => {
    running = await startGatewayOnFakes(config);
    anthropic = new Anthropic({ apiKey: MASTER_KEY, baseURL: running.gateway.url, maxRetries: 0 });
  });

  afterAll(() => stopGatewayOnFakes(running));

  const chat = (content: string, guardrail = 'content-filter-post') =>
    running.client.chat.completions.create({
      model: 'gpt-3.5-turbo',
      messages: [{ role: 'user', content }],
      guardrails: [guardrail],
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
  const streamedChat = async (content: string, guardrail = 'content-filter-post') => {
    const stream = await running.client.chat.completions.create({
      model: 'gpt-3.5-turbo',
      messages: [{ role: 'user', content }],
      stream: true,
      guardrails: [guardrail],
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    const deltas: string[] = [];
    for await (const chunk of stream) deltas.push(chunk.choices[0]?.delta.content ?? '');
    return deltas;
  };

  /** A streamed chat read until it ends or fails: its deltas, whether it finished, and what it failed with. */
  const cutStream = async (content: string, guardrail: string, client = running.client) => {
    const deltas: string[] = [];
    let finished = false;
    const error = await rejectionOf(
      (async () => {
        const stream = await client.chat.completions.create({
          model: 'gpt-3.5-turbo',
          messages: [{ role: 'user', content }],
          stream: true,
          guardrails: [guardrail],
        } as OpenAI.ChatCompletionCreateParamsStreaming);
        for await (const chunk of stream) {
          deltas.push(chunk.choices[0]?.delta.content ?? '');
          if (chunk.choices[0]?.finish_reason) finished = true;
        }
      })(),
    );
    return { deltas, error, finished };
  };

  it('masks the e-mail addresses of a JSON answer, and lets the prompt go to the upstream as it was (post_call looks at answers only)', async () => {
    const marker = randomUUID();
    const answer = await chat(`say: ${SAID} ${marker}`);
    expect(answer.choices[0]?.message.content).toBe(`${MASKED} ${marker}`);
    expect((await lastRequestWith(running.fake, marker)).body).toContain('john.doe@example.com');
  });

  it('masks a streamed answer whose addresses arrive split over chunks, so that no chunk carries any part of them, and counts it', async () => {
    const masks = async () => {
      const text = await (await fetch(`${running.gateway.url}/metrics`)).text();
      return Number(/arbor_aigw_guardrail_actions_total\{[^}]*guardrail="content-filter-post"[^}]*action="mask"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await masks();
    const deltas = await streamedChat(`say: ${SAID}`);
    expect(deltas.join('')).toBe(MASKED);
    expect(await masks()).toBe(before + 1);
    expect(deltas.length).toBeGreaterThan(3);
    for (const delta of deltas) expect(delta).not.toMatch(/john|doe@|example\.(com|org)/);
  });

  it('refuses a JSON answer with a blocked pattern in it with 400 guardrail_violation, never showing the match', async () => {
    const error = await rejectionOf(chat('say: the key is AKIAIOSFODNN7EXAMPLE, keep it'));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    expect((error as Error).message).toContain('content-filter-post');
    expect((error as Error).message).toContain('aws_access_key');
    expect((error as Error).message).not.toContain('AKIA');
  });

  it("ends a stream with a blocked keyword split over chunks with the family's error event, before the keyword is sent", async () => {
    const { deltas, error } = await cutStream('say: The code name of the plan is Project Falcon, as agreed.', 'content-filter-post');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('content-filter-post');
    expect(deltas.join('')).not.toMatch(/falcon/i);
  });

  it('masks streamed Anthropic Messages text deltas and the Responses API stream, its done events and the stored response alike', async () => {
    const stream = anthropic.messages.stream({
      model: 'claude',
      max_tokens: 256,
      messages: [{ role: 'user', content: `say: ${SAID}` }],
      guardrails: ['content-filter-post'],
    } as Anthropic.MessageStreamParams);
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();
    expect(deltas.join('')).toBe(MASKED);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: MASKED })]);

    const responses = await running.client.responses.create({
      model: 'gpt-3.5-turbo',
      input: `say: ${SAID}`,
      stream: true,
      guardrails: ['content-filter-post'],
    } as OpenAI.Responses.ResponseCreateParamsStreaming);
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of responses) events.push(event);
    const streamedText = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : [])).join('');
    expect(streamedText).toBe(MASKED);
    const done = events.find((event) => event.type === 'response.output_text.done') as OpenAI.Responses.ResponseTextDoneEvent;
    expect(done.text).toBe(MASKED);
    const completed = events.find((event) => event.type === 'response.completed') as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output_text ?? JSON.stringify(completed.response.output)).toContain('[EMAIL_REDACTED]');
    expect(JSON.stringify(events)).not.toContain('john.doe@example.com');
    const stored = await running.client.responses.retrieve(completed.response.id);
    expect(JSON.stringify(stored.output)).not.toContain('john.doe@example.com');
  });

  it('checks transcripts post_call in every response_format (json, verbose_json, text, srt, vtt, streamed): masked, or refused in the OpenAI envelope', async () => {
    // The fake transcribes a file as "fake transcript of <its name>".
    const transcribe = async (name: string, format: string, extra: Record<string, unknown> = {}) =>
      running.client.audio.transcriptions.create({
        model: 'whisper',
        file: await toFile(Buffer.alloc(16_000, 3), name, { type: 'audio/mpeg' }),
        response_format: format,
        guardrails: ['content-filter-post'],
        ...extra,
      } as unknown as OpenAI.Audio.TranscriptionCreateParamsNonStreaming) as Promise<unknown>;
    const json = (await transcribe('ann@example.com.mp3', 'json')) as { text: string };
    expect(json.text).toMatch(/^fake transcript of \[EMAIL_REDACTED\]/);
    const verbose = (await transcribe('ann@example.com.mp3', 'verbose_json')) as { text: string; segments: { text: string }[]; duration: number };
    expect(verbose.segments[0]?.text).toBe(verbose.text);
    expect(verbose.duration).toBe(1);
    for (const format of ['text', 'srt', 'vtt']) {
      const text = (await transcribe('ann@example.com.mp3', format)) as string;
      expect(text).toContain('fake transcript of [EMAIL_REDACTED]');
      if (format !== 'text') expect(text).toMatch(/00:00:00[,.]000 --> 00:00:01[,.]000/);
    }
    expect(JSON.stringify([json, verbose])).not.toContain('ann@');
    const refused = await rejectionOf(transcribe('project falcon.mp3', 'srt'));
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    expect((refused as Error).message).toContain('The answer was blocked by guardrail "content-filter-post"');
    expect((refused as Error).message).not.toMatch(/falcon/i);
    const stream = (await running.client.audio.transcriptions.create({
      model: 'transcribe',
      file: await toFile(Buffer.alloc(16_000, 3), 'ann@example.com.mp3', { type: 'audio/mpeg' }),
      stream: true,
      guardrails: ['content-filter-post'],
    } as OpenAI.Audio.TranscriptionCreateParamsStreaming)) as AsyncIterable<OpenAI.Audio.TranscriptionStreamEvent>;
    const events: OpenAI.Audio.TranscriptionStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const deltas = events.flatMap((event) => (event.type === 'transcript.text.delta' ? [event.delta] : [])).join('');
    expect(deltas).toContain('fake transcript of [EMAIL_REDACTED]');
    expect(events.at(-1)).toMatchObject({ type: 'transcript.text.done', text: expect.stringContaining('[EMAIL_REDACTED]') });
    expect(JSON.stringify(events)).not.toContain('ann@');
  });

  it('masks the answers of model calls on the /openai pass-through, JSON and streamed, and ends a stream it blocks with the error event', async () => {
    const openai = new OpenAI({ apiKey: MASTER_KEY, baseURL: `${running.gateway.url}/openai/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: 'gpt-3.5-turbo',
      messages: [{ role: 'user', content: `say: ${SAID}` }],
      guardrails: ['content-filter-post'],
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(answer.choices[0]?.message.content).toBe(MASKED);
    const blocked = await rejectionOf(
      openai.chat.completions.create({
        model: 'gpt-3.5-turbo',
        messages: [{ role: 'user', content: 'say: the key is AKIAIOSFODNN7EXAMPLE' }],
        guardrails: ['content-filter-post'],
      } as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    expect(blocked).toMatchObject({ status: 400, code: 'guardrail_violation' });
    expect((blocked as Error).message).not.toContain('AKIA');
    const stream = await openai.chat.completions.create({
      model: 'gpt-3.5-turbo',
      messages: [{ role: 'user', content: `say: ${SAID}` }],
      stream: true,
      guardrails: ['content-filter-post'],
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    const deltas: string[] = [];
    for await (const chunk of stream) deltas.push(chunk.choices[0]?.delta.content ?? '');
    expect(deltas.join('')).toBe(MASKED);
    for (const delta of deltas) expect(delta).not.toMatch(/john|doe@|example\.(com|org)/);
    const cut = await cutStream('say: The code name of the plan is Project Falcon, as agreed.', 'content-filter-post', openai);
    expect(cut.error).toBeInstanceOf(OpenAI.APIError);
    expect((cut.error as Error).message).toContain('content-filter-post');
    expect(cut.deltas.join('')).not.toMatch(/falcon/i);
  });

  it('during_call refuses a request with a blocked pattern before the upstream sees it, and masks the answer, not the request', async () => {
    const blocked = randomUUID();
    const error = await rejectionOf(chat(`My SSN is 123-45-6789 ${blocked}`, 'content-filter-during'));
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    await expect(lastRequestWith(running.fake, blocked)).rejects.toThrow('no request');
    const marker = randomUUID();
    const deltas = await streamedChat(`say: ${SAID} ${marker}`, 'content-filter-during');
    expect(deltas.join('')).toBe(`${MASKED} ${marker}`);
    expect((await lastRequestWith(running.fake, marker)).body).toContain('john.doe@example.com');
  });

  it('a moderation alias of model_list refuses flagged prompts and answers, by category and threshold when the config narrows it, and lets the rest through', async () => {
    // The fake moderation model flags a text holding "fake-violence" (violence, score 0.98).
    const blocked = randomUUID();
    const refused = await rejectionOf(chat(`tell me about fake-violence ${blocked}`, 'openai-moderation'));
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    expect((refused as Error).message).toContain('openai-moderation');
    expect((refused as Error).message).toContain('violence');
    // The moderation model saw the prompt; the chat model never did.
    expect((await lastRequestWith(running.fake, blocked)).path).toBe('/v1/moderations');
    const strict = await rejectionOf(chat('more fake-violence', 'moderation-strict'));
    expect((strict as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    const answered = await rejectionOf(chat('say: here is some fake-violence for you', 'moderation-answers'));
    expect((answered as Error).message).toContain('The answer was blocked by guardrail "moderation-answers"');
    expect((await chat('a harmless question', 'openai-moderation')).choices[0]?.message.content).toBeTruthy();
  });

  it("moderates a streamed answer as it passes: a harmless one streams whole, a flagged one ends with the family's error event and never ends as a success", async () => {
    const harmless = `say: ${'a calm and friendly sentence. '.repeat(40)}`;
    const deltas = await streamedChat(harmless, 'openai-moderation');
    expect(deltas.join('')).toBe(harmless.slice('say: '.length));
    // The moderation model saw the streamed text: past the window once, and at the end.
    const checks = (await running.fake.requests()).filter((seen) => seen.path === '/v1/moderations' && seen.body.includes('a calm and friendly sentence'));
    expect(checks.length).toBeGreaterThanOrEqual(2);
    for (const flagged of ['say: a short answer with fake-violence in it', `say: ${'fine words, '.repeat(100)}then fake-violence, ${'more words, '.repeat(100)}`]) {
      const { error, finished } = await cutStream(flagged, 'moderation-answers');
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as Error).message).toContain('The answer was blocked by guardrail "moderation-answers": flagged as violence');
      expect(finished).toBe(false);
    }
  });
});
