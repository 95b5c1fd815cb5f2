// The aliases as operators look at them (GET /api/v1/aliases, the UI's Models page): each alias
// with its deployments, provider, list price and whether the router is skipping it now.
import request from 'supertest';
import { asMaster, lastRequestWith, startGatewayOnFakes, stopGatewayOnFakes, type GatewayOnFakes } from './testing/gateway-test-support';

describe('ai-gateway aliases for operators', () => {
  let running: GatewayOnFakes;

  beforeAll(async () => {
    running = await startGatewayOnFakes(
      (fakeUrl) => `model_list:
  - model_name: priced
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream, rpm: 600 }
    model_info: { id: priced-1, input_cost_per_token: 0.000001, output_cost_per_token: 0.000004 }
  # Weighted so that the failing deployment is tried first; the router cools it, the other answers.
  - model_name: flaky
    litellm_params: { model: openai/fail-503, api_base: ${fakeUrl}/v1, api_key: sk-upstream, rpm: 1000000 }
    model_info: { id: flaky-1, input_cost_per_token: 0, output_cost_per_token: 0 }
  - model_name: flaky
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fakeUrl}/v1, api_key: sk-upstream, rpm: 1 }
    model_info: { id: flaky-2, input_cost_per_token: 0, output_cost_per_token: 0 }
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-5, api_base: ${fakeUrl}/anthropic, api_key: sk-ant-upstream, tpm: 90000 }
    model_info: { id: claude-1 }
router_settings:
  num_retries: 1
  allowed_fails: 1
  cooldown_time: 600
`,
    );
  });

  afterAll(() => stopGatewayOnFakes(running));

  it('lists every alias with its deployments, their provider, model, list price per million tokens and limits', async () => {
    const { body } = await request(running.gateway.url).get('/api/v1/aliases').set(asMaster).expect(200);
    const { aliases } = body as { aliases: { alias: string; deployments: Record<string, unknown>[] }[] };
    expect(aliases.map((alias) => alias.alias)).toEqual(['claude', 'flaky', 'priced']);
    expect(aliases.find((alias) => alias.alias === 'priced')?.deployments).toEqual([
      {
        id: 'priced-1',
        provider: 'openai',
        model: 'gpt-4o-mini',
        input_usd_per_million: 1,
        output_usd_per_million: 4,
        rpm: 600,
        tpm: null,
        cooling_down_until: null,
        last_error: null,
      },
    ]);
    // A model the gateway knows the price of, without model_info prices: the built-in list price.
    const [claude] = aliases.find((alias) => alias.alias === 'claude')?.deployments ?? [];
    expect(claude).toMatchObject({ id: 'claude-1', provider: 'anthropic', model: 'claude-sonnet-4-5', tpm: 90000 });
    expect(claude?.['input_usd_per_million']).toBeGreaterThan(0);
    expect(claude?.['output_usd_per_million']).toBeGreaterThan(claude?.['input_usd_per_million'] as number);
  });

  it('shows a deployment the router skips after failures as cooling down, until when, with its last error', async () => {
    const answered = await running.client.chat.completions.create({ model: 'flaky', messages: [{ role: 'user', content: 'flaky marker' }] });
    expect(answered.choices[0]?.message.content).toBe('fake answer from gpt-4o-mini');
    expect((await lastRequestWith(running.fake, 'flaky marker')).json['model']).toBe('gpt-4o-mini');
    const { body } = await request(running.gateway.url).get('/api/v1/aliases').set(asMaster).expect(200);
    const flaky = (body as { aliases: { alias: string; deployments: { id: string; cooling_down_until: string | null }[] }[] }).aliases.find((alias) => alias.alias === 'flaky');
    expect(flaky?.deployments.find((deployment) => deployment.id === 'flaky-2')?.cooling_down_until).toBeNull();
    const until = Date.parse(flaky?.deployments.find((deployment) => deployment.id === 'flaky-1')?.cooling_down_until ?? '');
    expect(until).toBeGreaterThan(Date.now() + 500_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 600_000);
    const failed = flaky?.deployments.find((deployment) => deployment.id === 'flaky-1') as unknown as { last_error: { status: number; message: string; at: string } };
    expect(failed.last_error).toEqual({ status: 503, code: expect.anything(), message: expect.stringMatching(/\S/), at: expect.any(String) });
    expect(Date.now() - Date.parse(failed.last_error.at)).toBeLessThan(60_000);
    expect(flaky?.deployments.find((deployment) => deployment.id === 'flaky-2')).toMatchObject({ last_error: null });
  });

  it('refuses a call without credentials in the platform envelope', async () => {
    const { body } = await request(running.gateway.url).get('/api/v1/aliases').expect(401);
    expect(body).toEqual({ error: { code: 'missing_credentials', message: expect.any(String) } });
  });
});
