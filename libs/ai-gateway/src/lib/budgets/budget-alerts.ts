import { Injectable, Logger } from '@nestjs/common';
import { CounterSeries, MetricsRegistry, SeriesCounter } from '@arbor/observability';
import { LRUCache } from 'lru-cache';
import type { VerifiedKey } from '../keys/key-verifier';
import { GatewayRedis } from '../limits/gateway-redis';

// Alerts this replica has raised (or heard were raised); a period's alert is never raised twice.
const RAISED = 100_000;
// A lifetime budget's alert is remembered in Redis this long.
const LIFETIME_ALERT_MS = 365 * 86_400_000;

/**
 * Budget alerts: a key's spend in its budget period reaching its soft_budget (LiteLLM's alert
 * threshold, which refuses nothing) is raised once per period — across replicas through Redis
 * when there is one — as a warning in the log and on `/metrics` as
 * `arbor_aigw_budget_alerts_total{level, threshold}`.
 */
@Injectable()
export class BudgetAlerts {
  private readonly logger = new Logger('ai-gateway-budgets');
  private readonly softBudget: CounterSeries<'level' | 'threshold'>;
  private readonly raised = new LRUCache<string, true>({ max: RAISED });

  constructor(
    registry: MetricsRegistry,
    private readonly redis: GatewayRedis,
  ) {
    const alerts = new SeriesCounter({
      name: 'arbor_aigw_budget_alerts_total',
      help: 'Budget alerts raised (once per budget period), by level and threshold.',
      labelNames: ['level', 'threshold'],
      registers: [registry],
    });
    this.softBudget = alerts.series({ level: 'key', threshold: 'soft_budget' });
  }

  /** The key's spend in its period (`periodEnd`; null: lifetime) went from below its soft_budget to `spend`. */
  softBudgetReached(key: VerifiedKey, spend: number, periodEnd: number | null): void {
    const id = `aigw:budget-alert:{key:${key.id}}:soft_budget:${periodEnd ?? 'lifetime'}`;
    if (this.raised.has(id)) return;
    this.raised.set(id, true);
    const raise = () => {
      this.softBudget.inc();
      this.logger.warn(`key ${key.id} of project "${key.project}" reached its soft_budget: ${spend} USD of ${key.softBudget} USD this budget period`);
    };
    const redis = this.redis.ready;
    if (!redis) return raise();
    const holdMs = periodEnd === null ? LIFETIME_ALERT_MS : Math.max(1, periodEnd - Date.now() + 3_600_000);
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
}
