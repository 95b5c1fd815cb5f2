// Budget alerts as a LiteLLM user configures them (general_settings.alerting with a webhook): the
// official OpenAI SDK spends a key's and a project's budgets against tools/fake-providers, and a
// receiver of the test's own gets each alert once — 50, 80 and 100 % — in LiteLLM's webhook event
// shape and in Slack's, and /metrics counts them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { AiGatewayConfig } from '@arbor/config';
import { RunningService } from '@arbor/platform';
import { createTestDatabase, FakeProvidersProcess, TestDatabase } from '@arbor/testing';
import { MASTER_KEY, rejectionOf, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An HTTP server that keeps the JSON bodies posted to it, by path. */
async function startReceiver(): Promise<{ url: string; received: Map<string, Json[]>; close(): Promise<void> }> {
  const received = new Map<string, Json[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const list = received.get(request.url ?? '') ?? [];
      list.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
      received.set(request.url ?? '', list);
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function eventually<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
  let value = read();
  for (let tries = 0; tries < 100 && !done(value); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = read();
  }
  return value;
}

const CONFIG = (fakeUrl: string) => `model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
`;

describe('budget alerts', () => {
  let fake: FakeProvidersProcess;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const databases: TestDatabase[] = [];
  const gateways: RunningService<AiGatewayConfig>[] = [];

  const start = async (general: string): Promise<RunningService<AiGatewayConfig>> => {
    const database = await createTestDatabase();
    databases.push(database);
    const gateway = await startTestGateway(database, writeConfig(`${CONFIG(fake.url)}general_settings:\n${general}`));
    gateways.push(gateway);
    return gateway;
  };
  const admin = async (gateway: RunningService<AiGatewayConfig>, path: string, body: unknown): Promise<Json> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as Json;
  };
  // 0.017 USD a call.
  const chat = (gateway: RunningService<AiGatewayConfig>, key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }] });

  beforeAll(async () => {
    [fake, receiver] = await Promise.all([startFake(), startReceiver()]);
  });

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await Promise.all(databases.map((database) => database.drop()));
    await receiver?.close();
    await fake?.stop();
  });

  it("sends LiteLLM's webhook event once for each of 50, 80 and 100 % of a key's max_budget, and counts them on /metrics", async () => {
    const gateway = await start(`  alerting: ["webhook"]\n  alert_to_webhook_url: { budget_alerts: "${receiver.url}/litellm" }\n`);
    const { key, token } = await admin(gateway, '/key/generate', { team_id: 'alpha', max_budget: 0.05 });
    await chat(gateway, key); // 0.017: under half
    await chat(gateway, key); // 0.034: past 50 %
    await chat(gateway, key); // 0.051: past 80 % and 100 %
    expect(await rejectionOf(chat(gateway, key))).toMatchObject({ status: 400, code: 'budget_exceeded' });
    const events = await eventually(
      () => receiver.received.get('/litellm') ?? [],
      (list) => list.length >= 3,
    );
    expect(events.map((event) => event['event'])).toEqual(['threshold_crossed', 'threshold_crossed', 'budget_crossed']);
    expect(events[0]).toMatchObject({ event_group: 'key', token, team_id: 'alpha', max_budget: 0.05, spend: 0.034, event_message: expect.stringContaining('50 % spent') });
    expect(events[2]).toMatchObject({ spend: 0.051, event_message: expect.stringContaining('100 % spent') });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    for (const threshold of ['50', '80', '100']) expect(metrics).toContain(`arbor_aigw_budget_alerts_total{level="key",threshold="${threshold}",service="ai-gateway"} 1`);
    // Once per period: nothing more is sent for the refused call or later ones.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.get('/litellm')).toHaveLength(3);
  });

  it("sends Slack's message body for a project's budget (LiteLLM's team) when alerting names slack", async () => {
    const gateway = await start(`  alerting: ["slack"]\n  alert_to_webhook_url: { budget_alerts: ["${receiver.url}/slack"] }\n`);
    await admin(gateway, '/team/update', { team_id: 'beta', max_budget: 0.03 });
    const { key } = await admin(gateway, '/key/generate', { team_id: 'beta' });
    await chat(gateway, key); // 0.017 of 0.03: past 50 %
    const messages = await eventually(
      () => receiver.received.get('/slack') ?? [],
      (list) => list.length >= 1,
    );
    expect(messages).toEqual([{ text: expect.stringMatching(/^Budget alert: the budget of project "beta", LiteLLM's team is 50 % spent: 0\.017 USD of 0\.03 USD/) }]);
  });

  it('stops the start when alerting names slack and no webhook URL is given, naming where to set it', async () => {
    await expect(start(`  alerting: ["slack"]\n`)).rejects.toThrow(
      /general_settings\.alerting: slack needs a webhook URL: set SLACK_WEBHOOK_URL, or general_settings\.alert_to_webhook_url\.budget_alerts/,
    );
  });
});
