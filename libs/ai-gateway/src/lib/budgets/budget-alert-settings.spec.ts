import { readBudgetAlertSettings } from './budget-alert-settings';

function read(general: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const problems: string[] = [];
  const warnings: string[] = [];
  const webhook = readBudgetAlertSettings(general, env, (at, message) => problems.push(`${at}: ${message}`), warnings);
  return { webhook: webhook && { form: webhook.form, url: webhook.url.toString() }, problems, warnings };
}

describe("budget alerts' webhook, read from general_settings as LiteLLM documents it", () => {
  it("takes LiteLLM's environment variable of the form when alert_to_webhook_url names none", () => {
    expect(read({ alerting: ['slack'] }, { SLACK_WEBHOOK_URL: 'https://hooks.slack.test/services/T/B/x' }).webhook).toEqual({
      form: 'slack',
      url: 'https://hooks.slack.test/services/T/B/x',
    });
    expect(read({ alerting: ['webhook'] }, { WEBHOOK_URL: 'http://alerts.internal/budget' }).webhook).toEqual({ form: 'webhook', url: 'http://alerts.internal/budget' });
    expect(read({ alerting: ['webhook'], alert_to_webhook_url: { budget_alerts: 'http://named.internal/' } }, { WEBHOOK_URL: 'http://env.internal/' }).webhook?.url).toBe(
      'http://named.internal/',
    );
  });

  it('sends nothing when alert_types leaves budget alerts out, and warns about integrations it does not send to', () => {
    expect(read({ alerting: ['slack'], alert_types: ['llm_exceptions'] }, { SLACK_WEBHOOK_URL: 'https://hooks.slack.test/x' }).webhook).toBeUndefined();
    expect(read({ alerting: ['email', 'slack'] }, { SLACK_WEBHOOK_URL: 'https://hooks.slack.test/x' })).toMatchObject({
      webhook: { form: 'slack' },
      warnings: [expect.stringContaining('email are not sent here')],
    });
  });

  it('names every problem, never the URL itself (a webhook URL is a credential)', () => {
    expect(read({ alerting: ['slack', 'webhook'] }, { SLACK_WEBHOOK_URL: 'https://a.test/', WEBHOOK_URL: 'https://b.test/' }).problems).toEqual([
      'general_settings.alerting: name one of slack or webhook: budget alerts go to one webhook',
    ]);
    const bad = read({ alerting: ['webhook'] }, { WEBHOOK_URL: 'ftp://secret-token@files.test/' });
    expect(bad.problems).toEqual(['WEBHOOK_URL: must be an http(s) URL']);
    expect(bad.problems.join(' ')).not.toContain('secret-token');
    expect(read({ alerting: ['webhook'] }).problems).toEqual([
      'general_settings.alerting: webhook needs a webhook URL: set WEBHOOK_URL, or general_settings.alert_to_webhook_url.budget_alerts',
    ]);
  });
});
