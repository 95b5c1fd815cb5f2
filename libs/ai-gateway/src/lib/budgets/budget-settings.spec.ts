// The workspace budget as a LiteLLM config sets it (docs/proxy/budget_reset_and_tz: max_budget, budget_duration, timezone).
import { ConfigError } from '@arbor/config';
import { parseGatewayConfig } from '../config/gateway-config';

const models = `
model_list:
  - model_name: chat
    litellm_params: { model: openai/gpt-4o }
`;

const problemsOf = (text: string): string[] => {
  try {
    parseGatewayConfig(text, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.lines();
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('the workspace budget in litellm_settings', () => {
  it("is read from LiteLLM's own example: max_budget, budget_duration and timezone", () => {
    const { litellm } = parseGatewayConfig(`${models}litellm_settings:\n  max_budget: 100\n  budget_duration: 30d\n  timezone: US/Eastern\n`, {});
    expect(litellm.budgets).toEqual({ workspace: { maxBudget: 100, budgetDuration: '30d', timeZone: 'US/Eastern' }, timeZone: 'US/Eastern' });
  });

  it('is a lifetime budget in UTC without budget_duration and timezone, and absent without max_budget', () => {
    expect(parseGatewayConfig(`${models}litellm_settings: { max_budget: 0.5 }\n`, {}).litellm.budgets).toEqual({
      workspace: { maxBudget: 0.5, budgetDuration: null, timeZone: 'UTC' },
      timeZone: 'UTC',
    });
    expect(parseGatewayConfig(`${models}litellm_settings: { drop_params: true }\n`, {}).litellm.budgets).toBeUndefined();
  });

  it('stops the start naming every bad setting', () => {
    expect(problemsOf(`${models}litellm_settings: { max_budget: -1, budget_duration: 1week, timezone: Mars/Olympus }\n`)).toEqual([
      'AIGW_CONFIG: litellm_settings.max_budget: must be 0 or more (USD)',
      'AIGW_CONFIG: litellm_settings.budget_duration: must look like 30s, 30m, 24h, 1d, 7d, 30d or 1mo',
      'AIGW_CONFIG: litellm_settings.timezone: must be an IANA time zone (UTC, Europe/Paris, US/Eastern), got "Mars/Olympus"',
    ]);
    expect(problemsOf(`${models}litellm_settings: { budget_duration: 1d }\n`)).toEqual([
      'AIGW_CONFIG: litellm_settings.budget_duration: needs litellm_settings.max_budget: it is the period of that budget',
    ]);
  });
});
