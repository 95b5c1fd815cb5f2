import { parsedUrl, SettingReader, type SettingProblem } from '@arbor/config';

/** Where budget alerts are sent, as LiteLLM's `general_settings.alerting` names it. */
export interface BudgetAlertWebhook {
  /** `slack`: a Slack incoming webhook's body (`{"text": …}`); `webhook`: LiteLLM's webhook event, as JSON. */
  readonly form: 'slack' | 'webhook';
  /** Secret (a Slack webhook's URL is its credential): never logged. */
  readonly url: URL;
}

/** LiteLLM's alerting integrations that send budget alerts here; others in `alerting` change nothing. */
const FORMS = ['slack', 'webhook'] as const;
/** The alert types LiteLLM's `alert_types` names that this gateway raises. */
const BUDGET_ALERT_TYPES = ['budget_alerts'];

/**
 * `general_settings.alerting` (`["slack"]` or `["webhook"]`), `alert_types` and
 * `alert_to_webhook_url.budget_alerts`, read as LiteLLM documents them (docs/proxy/alerting): the
 * URL is `alert_to_webhook_url.budget_alerts` (one, or the first of a list), else LiteLLM's
 * environment variable for the form (`SLACK_WEBHOOK_URL`, `WEBHOOK_URL`). Undefined: budget alerts
 * go to the log and /metrics only. `warnings` gets a line for what is set and changes nothing.
 */
export function readBudgetAlertSettings(general: Record<string, unknown>, env: NodeJS.ProcessEnv, problem: SettingProblem, warnings: string[]): BudgetAlertWebhook | undefined {
  const read = new SettingReader(problem);
  const alerting = names(read, general['alerting'], 'general_settings.alerting');
  if (alerting === undefined || alerting.length === 0) return undefined;
  const forms = alerting.filter((name): name is (typeof FORMS)[number] => (FORMS as readonly string[]).includes(name));
  const others = alerting.filter((name) => !(FORMS as readonly string[]).includes(name));
  if (others.length > 0) warnings.push(`general_settings.alerting: ${others.join(', ')} are not sent here (budget alerts go to slack or webhook, and to /metrics)`);
  if (forms.length > 1) problem('general_settings.alerting', 'name one of slack or webhook: budget alerts go to one webhook');
  const [form] = forms;
  if (form === undefined) return undefined;
  const types = names(read, general['alert_types'], 'general_settings.alert_types');
  if (types !== undefined && !types.some((type) => BUDGET_ALERT_TYPES.includes(type))) return undefined;
  const routed = general['alert_to_webhook_url'];
  let named: unknown = undefined;
  if (routed !== undefined) {
    if (typeof routed !== 'object' || routed === null || Array.isArray(routed)) problem('general_settings.alert_to_webhook_url', 'must map alert types to webhook URLs');
    else named = (routed as Record<string, unknown>)['budget_alerts'];
  }
  if (Array.isArray(named)) named = named[0];
  const variable = form === 'slack' ? 'SLACK_WEBHOOK_URL' : 'WEBHOOK_URL';
  // The URL is a credential: a problem names where it is, never what it is (SettingReader.url).
  const text = named !== undefined ? read.url(named, 'general_settings.alert_to_webhook_url.budget_alerts') : read.url(env[variable] || undefined, variable);
  if (named === undefined && !env[variable]) {
    problem('general_settings.alerting', `${form} needs a webhook URL: set ${variable}, or general_settings.alert_to_webhook_url.budget_alerts`);
  }
  const url = text === undefined ? undefined : parsedUrl(text);
  return url ? { form, url } : undefined;
}

/** A list of names (strings); undefined when not set. */
function names(read: SettingReader, value: unknown, path: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return read.list(value, path).flatMap((item, index) => read.string(item, `${path}[${index}]`) ?? []);
}
