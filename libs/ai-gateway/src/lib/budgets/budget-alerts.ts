import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { CounterSeries, errorFields, MetricsRegistry, SeriesCounter } from '@arbor/observability';
import { UpstreamClient } from '@arbor/platform';
import { LRUCache } from 'lru-cache';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import type { VerifiedKey } from '../keys/key-verifier';
import { GatewayRedis } from '../limits/gateway-redis';
import type { BudgetAlertWebhook } from './budget-alert-settings';

// Alerts this replica has raised (or heard were raised); a period's alert is never raised twice.
const RAISED = 100_000;
// A lifetime budget's alert is remembered in Redis this long.
const LIFETIME_ALERT_MS = 365 * 86_400_000;
/** Shares of a budget whose crossing is alerted, once each per period. */
const THRESHOLDS = [50, 80, 100] as const;
const WEBHOOK_TIMEOUT_MS = 5_000;
/** The LiteLLM event group of each level (its webhook's `event_group`). */
const EVENT_GROUPS: Record<string, string> = { workspace: 'proxy', project: 'team', person: 'internal_user', key: 'key', 'key-model': 'key', 'end-user': 'customer', tag: 'tag' };

/** Whether spend going from `before` to `after` crosses one of the alerted shares of `maxBudget`: a few comparisons, for the call path. */
export function crossesThreshold(maxBudget: number, before: number, after: number): boolean {
  if (!(maxBudget > 0) || !(after > before)) return false;
  return THRESHOLDS.some((threshold) => before < (maxBudget * threshold) / 100 && after >= (maxBudget * threshold) / 100);
}

/** A budget whose spend a settled call moved: what the alert names. */
export interface AlertedBudget {
  /** `key`, `workspace`, `project`, `person`, `key-model`, `end-user`, `tag`. */
  level: string;
  /** What the level counts: the key's id, the project's slug, … ('' for the workspace). */
  subject: string;
  /** How the alert names it: `the key's max_budget`, `the budget of project "alpha"`, … */
  description: string;
  /** USD. */
  maxBudget: number;
  /** End of its current period; null for a lifetime budget. */
  periodEnd: number | null;
  /** The key's project, when the budget is a key's or a project's (LiteLLM's team_id). */
  project?: string | null;
  /** The key's token (its SHA-256, as LiteLLM's), for a key's budget. */
  token?: string;
}

/**
 * Budget alerts, each raised once per budget period — across replicas through Redis when there
 * is one: a budget's spend crossing 50, 80 and 100 % of it (every level: the key's max_budget,
 * the workspace, a project, a person, a key's budget on an alias, an end user, a tag), and a key's
 * spend reaching its soft_budget (LiteLLM's alert threshold, which refuses nothing). Each is a
 * warning in the log, `arbor_aigw_budget_alerts_total{level, threshold}` on `/metrics`, and with
 * `general_settings.alerting` a message to Slack or LiteLLM's webhook event, sent off the call path.
 */
@Injectable()
export class BudgetAlerts {
  private readonly logger = new Logger('ai-gateway-budgets');
  private readonly alerts: SeriesCounter<'level' | 'threshold'>;
  private readonly series = new Map<string, CounterSeries<'level' | 'threshold'>>();
  private readonly raised = new LRUCache<string, true>({ max: RAISED });
  private readonly webhook: BudgetAlertWebhook | undefined;
  private client: UpstreamClient | undefined;

  constructor(
    registry: MetricsRegistry,
    private readonly redis: GatewayRedis,
    @Optional() @Inject(GATEWAY_SETTINGS) settings?: GatewaySettings,
  ) {
    this.alerts = new SeriesCounter({
      name: 'arbor_aigw_budget_alerts_total',
      help: 'Budget alerts raised (once per budget period), by level and threshold.',
      labelNames: ['level', 'threshold'],
      registers: [registry],
    });
    this.webhook = settings?.litellm.budgetAlerts;
  }

  /** The key's spend in its period (`periodEnd`; null: lifetime) went from below its soft_budget to `spend`. */
  softBudgetReached(key: VerifiedKey, spend: number, periodEnd: number | null): void {
    const budget: AlertedBudget = {
      level: 'key',
      subject: key.id,
      description: "the key's soft_budget",
      maxBudget: key.softBudget ?? 0,
      periodEnd,
      project: key.project,
      token: key.keyHash,
    };
    this.raise(budget, 'soft_budget', spend, `key ${key.id} of project "${key.project}" reached its soft_budget: ${spend} USD of ${key.softBudget} USD this budget period`);
  }

  /** A settled call took the budget's spend from `before` to `after` (USD, in its current period): alerts for each threshold crossed. */
  spent(budget: AlertedBudget, before: number, after: number): void {
    if (!(budget.maxBudget > 0) || !(after > before)) return;
    for (const threshold of THRESHOLDS) {
      const mark = (budget.maxBudget * threshold) / 100;
      if (before < mark && after >= mark) {
        this.raise(budget, String(threshold), after, `${budget.description} is ${threshold} % spent: ${after} USD of ${budget.maxBudget} USD this budget period`);
      }
    }
  }

  private raise(budget: AlertedBudget, threshold: string, spend: number, message: string): void {
    const id = `aigw:budget-alert:{${budget.level}:${budget.subject}}:${threshold}:${budget.periodEnd ?? 'lifetime'}`;
    if (this.raised.has(id)) return;
    this.raised.set(id, true);
    const raise = () => {
      this.counter(budget.level, threshold).inc();
      this.logger.warn(`budget alert: ${message}`);
      if (this.webhook) this.send(this.webhook, budget, threshold, spend, message);
    };
    const redis = this.redis.ready;
    if (!redis) return raise();
    const holdMs = budget.periodEnd === null ? LIFETIME_ALERT_MS : Math.max(1, budget.periodEnd - Date.now() + 3_600_000);
    // Only the replica that sets it raises the alert.
    redis.set(id, '1', 'PX', holdMs, 'NX').then(
      (set) => {
        if (set === 'OK') raise();
      },
      (error: unknown) => {
        this.redis.unavailable(error);
        raise();
      },
    );
  }

  private counter(level: string, threshold: string): CounterSeries<'level' | 'threshold'> {
    const name = `${level}\0${threshold}`;
    let series = this.series.get(name);
    if (!series) this.series.set(name, (series = this.alerts.series({ level, threshold })));
    return series;
  }

  /** Off the call path; a webhook that fails is logged (never its URL: a Slack webhook's URL is its secret). */
  private send(webhook: BudgetAlertWebhook, budget: AlertedBudget, threshold: string, spend: number, message: string): void {
    const body =
      webhook.form === 'slack'
        ? { text: `Budget alert: ${message}` }
        : {
            spend,
            max_budget: budget.maxBudget,
            token: budget.token ?? null,
            customer_id: budget.level === 'end-user' ? budget.subject : null,
            user_id: budget.level === 'person' ? budget.subject.slice(budget.subject.indexOf(':') + 1) : null,
            team_id: budget.project ?? (budget.level === 'project' ? budget.subject : budget.level === 'person' ? budget.subject.slice(0, budget.subject.indexOf(':')) : null),
            team_alias: null,
            user_email: null,
            key_alias: null,
            projected_exceeded_date: null,
            projected_spend: null,
            event: threshold === 'soft_budget' ? 'soft_budget_crossed' : threshold === '100' ? 'budget_crossed' : 'threshold_crossed',
            event_group: EVENT_GROUPS[budget.level] ?? budget.level,
            event_message: message,
          };
    this.client ??= new UpstreamClient();
    this.client
      .send({ url: webhook.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), timeoutMs: WEBHOOK_TIMEOUT_MS })
      .then(async (answer) => {
        await answer.body.all(64 * 1024, () => new Error('the answer is too large')).catch(() => undefined);
        if (answer.statusCode >= 300) this.logger.warn(`the budget alert webhook (${webhook.form}) answered ${answer.statusCode}`);
      })
      .catch((error: unknown) => this.logger.warn(`the budget alert webhook (${webhook.form}) could not be reached`, { err: errorFields(error) }));
  }
}
