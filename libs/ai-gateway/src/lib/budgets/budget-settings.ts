import { SettingReader, type SettingProblem } from '@arbor/config';
import { BUDGET_DURATION } from '../keys/dto/key-fields';
import { isTimeZone } from '../limits/budget-period';

/** The workspace budget: LiteLLM's proxy-wide `litellm_settings.max_budget`, every call of every key counted. */
export interface WorkspaceBudgetSettings {
  /** USD. */
  readonly maxBudget: number;
  /** `1d`, `7d`, `30d`, `1mo`…; null: a lifetime budget. */
  readonly budgetDuration: string | null;
  /** IANA time zone its periods follow (`litellm_settings.timezone`, UTC when unset). */
  readonly timeZone: string;
}

/** The budget settings of `litellm_settings`, as LiteLLM documents them (docs/proxy/budget_reset_and_tz). */
export interface BudgetSettings {
  /** Undefined without `max_budget`: no workspace budget, and nothing on the call path. */
  readonly workspace?: WorkspaceBudgetSettings;
  readonly timeZone: string;
}

/** `litellm_settings.max_budget`, `budget_duration` and `timezone`, checked. */
export function readBudgetSettings(litellm: Record<string, unknown>, problem: SettingProblem): BudgetSettings {
  const read = new SettingReader(problem);
  const maxBudget = read.number(litellm['max_budget'], 'litellm_settings.max_budget');
  const duration = read.string(litellm['budget_duration'], 'litellm_settings.budget_duration');
  const zone = read.string(litellm['timezone'], 'litellm_settings.timezone');
  if (maxBudget !== undefined && maxBudget < 0) problem('litellm_settings.max_budget', 'must be 0 or more (USD)');
  if (duration !== undefined && !BUDGET_DURATION.test(duration)) problem('litellm_settings.budget_duration', 'must look like 30s, 30m, 24h, 1d, 7d, 30d or 1mo');
  if (duration !== undefined && maxBudget === undefined) problem('litellm_settings.budget_duration', 'needs litellm_settings.max_budget: it is the period of that budget');
  if (zone !== undefined && !isTimeZone(zone)) problem('litellm_settings.timezone', `must be an IANA time zone (UTC, Europe/Paris, US/Eastern), got "${zone}"`);
  const timeZone = zone !== undefined && isTimeZone(zone) ? zone : 'UTC';
  if (maxBudget === undefined || maxBudget < 0) return { timeZone };
  return { workspace: { maxBudget, budgetDuration: duration !== undefined && BUDGET_DURATION.test(duration) ? duration : null, timeZone }, timeZone };
}
