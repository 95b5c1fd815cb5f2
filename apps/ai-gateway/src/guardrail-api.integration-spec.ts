// LiteLLM's generic guardrail API (generic_guardrail_api), against a guardrail of the test's own that
// speaks the documented contract: POST /beta/litellm_basic_guardrail_api with the call's texts,
// answered BLOCKED, NONE or GUARDRAIL_INTERVENED with the texts rewritten.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { type GatewayOnFakes, lastRequestWith, rejectionOf, startGatewayOnFakes, stopGatewayOnFakes } from './testing/gateway-test-support';

interface Seen {
  path: string;
  apiKey: string | undefined;
  body: { texts: string[]; input_type: string; request_data: Record<string, string>; request_headers?: Record<string, string>; additional_provider_specific_params: unknown };
}

/** Blocks texts saying "forbidden", rewrites "secret-42" to "[REDACTED]", leaves the rest. */
function startGuardrail(): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(raw) as Seen['body'];
      seen.push({ path: request.url ?? '', apiKey: request.headers['x-api-key'] as string | undefined, body });
      const texts = body.texts.map((text) => text.replaceAll('secret-42', '[REDACTED]'));
      const answer = body.texts.some((text) => text.includes('forbidden'))
        ? { action: 'BLOCKED', blocked_reason: 'policy: forbidden topic' }
        : texts.some((text, index) => text !== body.texts[index])
          ? { action: 'GUARDRAIL_INTERVENED', texts }
          : { action: 'NONE' };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((done) => server.close(() => done())) }),
    ),
  );
}

describe('guardrails: a generic guardrail API of the operator own (generic_guardrail_api)', () => {
  let running: GatewayOnFakes;
  let guardrail: Awaited<ReturnType<typeof startGuardrail>>;

  beforeAll(async () => {
    guardrail = await startGuardrail();
    running = await startGatewayOnFakes(
      (fakeUrl) => `model_list:
  - model_name: gpt-3.5-turbo
    litellm_params:
      model: openai/gpt-3.5-turbo
      api_base: ${fakeUrl}/v1
      api_key: sk-upstream

guardrails:
  - guardrail_name: "my-guardrail"
    litellm_params:
      guardrail: generic_guardrail_api
      mode: [pre_call, post_call]
      api_base: ${guardrail.url}
      api_key: sk-guardrail-test
      extra_headers: [x-request-id]
      additional_provider_specific_params:
        threshold: 0.8
  - guardrail_name: "answers-only"
    litellm_params:
      guardrail: generic_guardrail_api
      mode: post_call
      api_base: ${guardrail.url}
  - guardrail_name: "unreachable-open"
    litellm_params:
      guardrail: generic_guardrail_api
      api_base: http://127.0.0.1:9
      unreachable_fallback: fail_open
  - guardrail_name: "unreachable-closed"
    litellm_params:
      guardrail: generic_guardrail_api
      api_base: http://127.0.0.1:9
`,
    );
  });

  afterAll(async () => {
    await stopGatewayOnFakes(running);
    await guardrail?.close();
  });

  const chat = (content: string, name = 'my-guardrail', headers: Record<string, string> = {}) =>
    running.client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content }], guardrails: [name] } as OpenAI.ChatCompletionCreateParamsNonStreaming, {
      headers,
    });

  it("refuses what the API blocks with 400 guardrail_violation and its reason, and sends it LiteLLM's fields", async () => {
    const marker = randomUUID();
    const error = await rejectionOf(chat(`tell me about the forbidden thing ${marker}`, 'my-guardrail', { 'x-request-id': 'req-7' }));
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('guardrail_violation');
    expect((error as Error).message).toContain('policy: forbidden topic');
    await expect(lastRequestWith(running.fake, marker)).rejects.toThrow('no request');
    const asked = guardrail.seen.at(-1) as Seen;
    expect(asked.path).toBe('/beta/litellm_basic_guardrail_api');
    expect(asked.apiKey).toBe('sk-guardrail-test');
    expect(asked.body).toMatchObject({ texts: [`tell me about the forbidden thing ${marker}`], input_type: 'request', additional_provider_specific_params: { threshold: 0.8 } });
    expect(asked.body.request_headers).toMatchObject({ 'x-request-id': 'req-7', 'content-type': '[present]' });
    expect(JSON.stringify(asked.body)).not.toContain('Bearer');
  });

  it('sends the upstream the texts as the API rewrote them, and the client the answer as the API rewrote it', async () => {
    const marker = randomUUID();
    const answer = await chat(`say: the code is secret-42 ${marker}`);
    expect((await lastRequestWith(running.fake, marker)).body).toContain(`say: the code is [REDACTED] ${marker}`);
    // The fake says what it was told, and that already went masked; the answer is checked too.
    expect(answer.choices[0]?.message.content).toBe(`the code is [REDACTED] ${marker}`);
    expect(guardrail.seen.at(-1)?.body.input_type).toBe('response');
    const unmasked = randomUUID();
    const rewritten = await chat(`say: the code is secret-42 ${unmasked}`, 'answers-only');
    expect((await lastRequestWith(running.fake, unmasked)).body).toContain('secret-42');
    expect(rewritten.choices[0]?.message.content).toBe(`the code is [REDACTED] ${unmasked}`);
  });

  it("checks a streamed answer with the API as it passes: what it lets through streams whole, what it blocks or would rewrite ends with the family's error event", async () => {
    const streamed = async (content: string) => {
      const stream = await running.client.chat.completions.create({
        model: 'gpt-3.5-turbo',
        messages: [{ role: 'user', content }],
        stream: true,
        guardrails: ['answers-only'],
      } as OpenAI.ChatCompletionCreateParamsStreaming);
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    };
    const marker = randomUUID();
    expect(await streamed(`say: all is well ${marker}`)).toBe(`all is well ${marker}`);
    expect(guardrail.seen.at(-1)?.body).toMatchObject({ texts: [`all is well ${marker}`], input_type: 'response' });
    const blocked = await rejectionOf(streamed('say: now the forbidden part'));
    expect(blocked).toBeInstanceOf(OpenAI.APIError);
    expect((blocked as Error).message).toContain('policy: forbidden topic');
    // Text already sent cannot be rewritten: the stream is refused rather than passed as the API would not have it.
    const rewritten = await rejectionOf(streamed('say: the code is secret-42'));
    expect((rewritten as Error).message).toContain('The answer was blocked by guardrail "answers-only": it asked for a rewrite of text already streamed');
  });

  it('fails closed when the API cannot be reached, unless unreachable_fallback says fail_open', async () => {
    const closed = await rejectionOf(chat('hello', 'unreachable-closed'));
    expect(closed).toBeInstanceOf(OpenAI.APIError);
    expect((closed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((closed as InstanceType<typeof OpenAI.APIError>).code).toBe('guardrail_unavailable');
    expect((await chat('hello', 'unreachable-open')).choices[0]?.message.content).toBeTruthy();
  });
});
