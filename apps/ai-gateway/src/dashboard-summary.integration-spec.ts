// The AI gateway's card on the suite dashboard, as the control plane's UI asks for it: with the
// signed-in person's dev-idp token, from the browser's origin, answering only the projects the
// control plane lets that person see. The built control plane, real PostgreSQL, the fake providers.
import OpenAI from 'openai';
import { createTestDatabase, FakeProvidersProcess, machineToken, startTestControlPlane, TestControlPlane, TestDatabase } from '@arbor/testing';
import { RunningService } from '@arbor/platform';
import type { AiGatewayConfig } from '@arbor/config';
import type { DashboardSummary } from '@arbor/contract';
import { managedBy, MASTER_KEY, sdkClient, startFake, startTestGateway, writeConfig } from './testing/gateway-test-support';

const UI_ORIGIN = 'http://dashboard.test:8080';

describe('the AI gateway dashboard summary', () => {
  let controlPlane: TestControlPlane;
  let fake: FakeProvidersProcess;
  let database: TestDatabase;
  let gateway: RunningService<AiGatewayConfig>;

  const summaryFor = async (token: string): Promise<{ status: number; body: DashboardSummary }> => {
    const response = await fetch(`${gateway.url}/api/v1/dashboard/summary`, { headers: { authorization: `Bearer ${token}`, origin: UI_ORIGIN } });
    return { status: response.status, body: (await response.json()) as DashboardSummary };
  };
  const tile = (summary: DashboardSummary, label: string) => summary.tiles.find((candidate) => candidate.label === label);

  beforeAll(async () => {
    controlPlane = await startTestControlPlane();
    await controlPlane.grant('alice', { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.viewer'] } });
    await controlPlane.grant('bob', { workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.viewer'] } });
    fake = await startFake();
    database = await createTestDatabase();
    const config = writeConfig(`model_list:
  - model_name: fast
    litellm_params: { model: openai/gpt-4o-mini, api_base: ${fake.url}/v1, api_key: sk-upstream }
    model_info: { input_cost_per_token: 0.001, output_cost_per_token: 0.002 }
  - model_name: broken
    litellm_params: { model: openai/fail-500, api_base: ${fake.url}/v1, api_key: sk-upstream }
router_settings: { num_retries: 0 }
guardrails:
  - guardrail_name: no-ssn
    litellm_params:
      guardrail: litellm_content_filter
      mode: pre_call
      default_on: true
      patterns:
        - { pattern_type: prebuilt, pattern_name: us_ssn, action: BLOCK }
`);
    gateway = await startTestGateway(database, config, { ...managedBy(controlPlane), AIGW_CORS_ORIGINS: UI_ORIGIN });
    const newKey = async (body: Record<string, unknown>) => {
      const response = await fetch(`${gateway.url}/api/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return ((await response.json()) as { key: string }).key;
    };
    const alpha = sdkClient(gateway, await newKey({ project: 'alpha', max_budget: 0.02 }));
    const beta = sdkClient(gateway, await newKey({ project: 'beta' }));
    // beta's budget as a project (LiteLLM's team): its one call spends 0.017 of 0.02, past the 80 % mark.
    const team = await fetch(`${gateway.url}/team/update`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ team_id: 'beta', max_budget: 0.02, budget_duration: '30d' }),
    });
    expect(team.status).toBe(200);
    const ask = (client: OpenAI, model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    // alpha: one failed call, then two answered ones (0.017 USD each, past its 0.02 budget); beta: one call.
    await expect(ask(alpha, 'broken')).rejects.toThrow();
    await ask(alpha, 'fast');
    await ask(alpha, 'fast');
    // A prompt the guardrail refuses, on alpha's key: in the call log, not in spend. Before beta's
    // call, so that the flush the wait below sees has it too.
    await expect(alpha.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'My SSN is 123-45-6789' }] })).rejects.toThrow(/guardrail/);
    await ask(beta, 'fast');
    // Spend and call counts are written behind (within a second): wait until the rollups have them.
    for (let tries = 0; tries < 50; tries += 1) {
      const { body } = await summaryFor(controlPlane.tokens.bob);
      if (tile(body, 'Spend today')?.value === 0.017) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await database?.drop();
    await fake?.stop();
    await controlPlane?.stop();
  });

  it("shows alice alpha's spend, calls, errors, top alias and the key over budget, and nothing of beta", async () => {
    const { status, body } = await summaryFor(controlPlane.tokens.alice);
    expect(status).toBe(200);
    expect(body).toMatchObject({ product: 'ai-gateway', title: 'AI gateway', status: 'degraded' });
    // Amounts as the exact decimals they are (not rounded to cents: sub-cent spend would read as 0).
    expect(tile(body, 'Spend today')).toEqual({ label: 'Spend today', value: 0.034, unit: 'USD', breakdown: [{ project: 'alpha', value: 0.034 }] });
    expect(tile(body, 'Spend this month')?.value).toBe(0.034);
    expect(tile(body, 'Calls, last 24 h')?.breakdown).toEqual([{ project: 'alpha', value: 3 }]);
    expect(tile(body, 'Errors, last 24 h')?.breakdown).toEqual([{ project: 'alpha', value: 1 }]);
    expect(tile(body, 'Top aliases this month')?.value).toBe('fast ($0.03)');
    expect(tile(body, 'Keys near or over budget')?.breakdown).toEqual([{ project: 'alpha', value: 1 }]);
    expect(tile(body, 'Project and person budgets near or over')?.value).toBe(0);
    expect(tile(body, 'Guardrail refusals, last 24 h')?.breakdown).toEqual([{ project: 'alpha', value: 1 }]);
    expect(JSON.stringify(body)).not.toContain('beta');
  });

  it('shows bob only beta', async () => {
    const { body } = await summaryFor(controlPlane.tokens.bob);
    expect(tile(body, 'Calls, last 24 h')).toEqual({ label: 'Calls, last 24 h', value: 1, unit: 'requests', breakdown: [{ project: 'beta', value: 1 }] });
    expect(tile(body, 'Spend today')?.value).toBe(0.017);
    expect(tile(body, 'Keys near or over budget')?.value).toBe(0);
    expect(tile(body, 'Project and person budgets near or over')?.breakdown).toEqual([{ project: 'beta', value: 1 }]);
    expect(tile(body, 'Guardrail refusals, last 24 h')?.value).toBe(0);
    expect(body.status).toBe('ok');
  });

  it('shows a person without the ai-gateway sign-in key no figures, and refuses machines and strangers', async () => {
    expect((await summaryFor(controlPlane.tokens.admin)).body).toEqual({ product: 'ai-gateway', title: 'AI gateway', status: 'ok', tiles: [] });
    expect((await summaryFor(await machineToken('control-plane-m2m'))).status).toBe(403);
    const anonymous = await fetch(`${gateway.url}/api/v1/dashboard/summary`);
    expect(anonymous.status).toBe(401);
  });

  it("lets the control plane's UI call it from the browser (CORS), and no other page", async () => {
    const preflight = (origin: string) =>
      fetch(`${gateway.url}/api/v1/dashboard/summary`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect((await preflight('https://elsewhere.example')).headers.get('access-control-allow-origin')).toBeNull();
    const answer = await fetch(`${gateway.url}/api/v1/dashboard/summary`, { headers: { authorization: `Bearer ${controlPlane.tokens.alice}`, origin: UI_ORIGIN } });
    expect(answer.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  });
});
