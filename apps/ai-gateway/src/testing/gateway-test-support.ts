// Test-only: the fake upstreams, a gateway config file of the test's own, and the gateway itself.
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, FakeProviderRequest, FakeProvidersProcess, startFakeProviders, TestDatabase, testIssuer } from '@arbor/testing';
import { aiGatewayService } from '../ai-gateway.module';

export const MASTER_KEY = 'sk-arbor-test-master';
/** The headers of a JSON request with the master key. */
export const asMaster = { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' };

/** tools/fake-providers on a free port, as its own process. */
export const startFake = startFakeProviders;

/** Writes an AIGW_CONFIG file in a fresh temporary directory and returns its path. */
export function writeConfig(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'aigw-')), 'config.yaml');
  writeFileSync(file, text);
  return file;
}

/** The gateway in process on a free port, with the test master key and `configFile` (if any); `env` adds or overrides settings. */
export function startTestGateway(database: TestDatabase, configFile: string | undefined, env: Record<string, string> = {}): Promise<RunningService<AiGatewayConfig>> {
  return startService(aiGatewayService, {
    AIGW_DATABASE_URL: database.url,
    AIGW_LISTEN_ADDR: '127.0.0.1:0',
    AIGW_LOG: 'off',
    ...(configFile === undefined ? {} : { AIGW_CONFIG: configFile }),
    AIGW_MASTER_KEY: MASTER_KEY,
    ...env,
  });
}

/** The settings that make the gateway a product of `controlPlane` (a control plane of the tests): its issuer, its address, the gateway's machine client of the dev realm. */
export function managedBy(controlPlane: { url: string }): Record<string, string> {
  return {
    AIGW_OIDC_ISSUER_URL: testIssuer(),
    AIGW_CONTROL_PLANE_URL: controlPlane.url,
    AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
    AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
  };
}

/** The official SDK as an application would use it, with the master key and no retries of its own. */
export function sdkClient(gateway: { url: string }, apiKey = MASTER_KEY): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
}

/** The fake providers, a fresh database and the gateway on a config naming the fakes' address. */
export interface GatewayOnFakes {
  fake: FakeProvidersProcess;
  database: TestDatabase;
  gateway: RunningService<AiGatewayConfig>;
  client: OpenAI;
}

export async function startGatewayOnFakes(config: (fakeUrl: string) => string): Promise<GatewayOnFakes> {
  const fake = await startFakeProviders();
  const database = await createTestDatabase();
  const gateway = await startTestGateway(database, writeConfig(config(fake.url)));
  return { fake, database, gateway, client: sdkClient(gateway) };
}

/** For afterAll: whatever of it started, stopped. */
export async function stopGatewayOnFakes(running: Partial<GatewayOnFakes>): Promise<void> {
  await running.gateway?.close();
  await running.database?.drop();
  await running.fake?.stop();
}

/** The last request the fakes received whose body contains `marker`, with its body parsed. */
export async function lastRequestWith(fake: FakeProvidersProcess, marker: string): Promise<FakeProviderRequest & { json: Record<string, unknown> }> {
  const request = (await fake.requests()).filter((seen) => seen.body.includes(marker)).at(-1);
  if (!request) throw new Error(`the fake saw no request containing ${marker}`);
  return { ...request, json: JSON.parse(request.body) as Record<string, unknown> };
}

/** What a chat completion stream said, read to its end: the text, the last finish reason, the usage. */
export async function readChatStream(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
): Promise<{ text: string; finishReason: string | null; usage: OpenAI.CompletionUsage | undefined }> {
  let text = '';
  let finishReason: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    usage = chunk.usage ?? usage;
  }
  return { text, finishReason, usage };
}

/** The error a call rejected with (the call must fail). */
export function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => new Error('the call succeeded'),
    (error: unknown) => error,
  );
}

/** Waits for the next minute when fewer than `seconds` are left in this one: calls counted per minute then all fall in one. */
export async function withinOneMinute(seconds = 15): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** `read()` again every 50 ms until `done` holds of its value (at most `withinMs`, 5 s by default); the last value read. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, withinMs = 5_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** Multipart part headers that once stopped the gateway (the parser's second error went unheard), by what is wrong with them. */
export const HOSTILE_PART_HEADERS: Readonly<Record<string, string>> = {
  'a NUL in the file name': 'Content-Disposition: form-data; name="file"; filename="a\x00b.png"',
  'a NUL in the field name': 'Content-Disposition: form-data; name="fi\x00le"; filename="a.png"',
  'a header line without a colon': 'Content-Disposition: form-data; name="file"; filename="a.png"\r\nno colon here',
  'a 100 kB part header': `Content-Disposition: form-data; name="file"; filename="a.png"\r\nX-Padding: ${'a'.repeat(100_000)}`,
};

/** POSTs a multipart body of one part with `partHeaders` to `url` as it is (boundary B): the status and JSON answer. */
export async function postHostileForm(url: string, apiKey: string, partHeaders: string): Promise<{ status: number; body: { error?: { code?: string; type?: string } } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'multipart/form-data; boundary=B' },
    body: Buffer.from(`--B\r\n${partHeaders}\r\n\r\nx\r\n--B--\r\n`, 'latin1'),
  });
  return { status: response.status, body: (await response.json()) as { error?: { code?: string; type?: string } } };
}

/** A GET with its path sent as it is (fetch and the SDKs would resolve its dot segments first): the status and body. */
export function requestAsSent(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(baseUrl);
    const sent = http.request({ hostname, port, path, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}
