import { LRUCache } from 'lru-cache';
import type { GatewayRedis } from '../limits/gateway-redis';
import type { UsdUnits } from '../pricing/usd';

/** A budget a call is checked against: its level, what it counts, its limit, its current period. */
export interface AppliedBudget {
  /** `workspace`, …: named in the refusal and in the spend rows. */
  readonly level: string;
  /** What the level counts ('' for the workspace). */
  readonly subject: string;
  /** null: spend is counted (for the level's reports), nothing is refused for it. */
  readonly maxBudget: UsdUnits | null;
  /** End of the current period; null for a lifetime budget. */
  readonly periodEnd: number | null;
  /** Only written to budget_spend for reports (a tag's spend of the day): never counted or checked here. */
  readonly reportOnly?: boolean;
}

interface LocalSpend {
  periodEnd: number | null;
  spent: UsdUnits;
}

// A lifetime budget's counter lives this long after its last call, then is seeded again.
const LIFETIME_TTL_MS = 30 * 86_400_000;
// A period's counter outlives the period a little, for replicas whose clocks differ slightly.
const PERIOD_GRACE_MS = 3_600_000;

/** Redis is configured but cannot answer, and budgets fail closed (AIGW_BUDGETS_WITHOUT_REDIS). */
export class BudgetsUnavailable extends Error {}

/**
 * What each budget has spent in its period: in this process, and with AIGW_REDIS_URL in Redis,
 * shared by every replica (one pipelined round trip per admission, settling without waiting).
 * Money is counted exactly, in whole picodollars (INCRBY on integers, never floats). While Redis
 * is unreachable each replica counts on from its own figures (warned once by GatewayRedis), as
 * the key's limits do.
 */
export class BudgetCounters {
  // Bounded: the least recently used budget's figures go first and are seeded again when it comes back.
  private readonly local = new LRUCache<string, LocalSpend>({ max: 100_000 });
  /** This database's budget_namespace: the counters of another gateway sharing the Redis are others. */
  private namespace = '';

  constructor(
    private readonly redis: GatewayRedis,
    /** While a configured Redis is unreachable: refuse (closed) or count in this replica (open). */
    private readonly withoutRedis: 'closed' | 'open' = 'closed',
  ) {}

  /** Set at start, before the first call. */
  useNamespace(namespace: string): void {
    this.namespace = namespace;
  }

  /** What the database holds for a budget's period (read at start), unless this replica knows more. */
  seed(budget: AppliedBudget, persisted: UsdUnits): void {
    const current = this.localOf(budget);
    if (persisted > current.spent) current.spent = persisted;
  }

  /** What each budget has spent in its current period, in the order given (0 for report-only ones). */
  async spent(budgets: readonly AppliedBudget[]): Promise<UsdUnits[]> {
    const redis = this.redis.ready;
    if (redis) {
      try {
        const pipeline = redis.pipeline();
        const reads: number[] = [];
        for (const budget of budgets) {
          if (budget.reportOnly) {
            reads.push(-1);
            continue;
          }
          const name = this.redisName(budget);
          pipeline.set(name, this.localOf(budget).spent.toString(), 'NX');
          if (budget.periodEnd === null) pipeline.pexpire(name, LIFETIME_TTL_MS);
          else pipeline.pexpireat(name, budget.periodEnd + PERIOD_GRACE_MS);
          pipeline.get(name);
          reads.push(pipeline.length - 1);
        }
        const results = await pipeline.exec();
        if (!results) throw new Error('Redis answered no results');
        for (const [error] of results) if (error) throw error;
        return reads.map((at) => (at < 0 ? 0n : BigInt(String(results[at]?.[1] ?? '0'))));
      } catch (error) {
        this.redis.unavailable(error);
      }
    }
    if (this.redis.client && this.withoutRedis === 'closed' && budgets.some((budget) => !budget.reportOnly)) throw new BudgetsUnavailable('Redis is unreachable');
    return budgets.map((budget) => (budget.reportOnly ? 0n : this.localOf(budget).spent));
  }

  /** A settled call's cost, on each budget it was checked against. */
  add(budgets: readonly AppliedBudget[], cost: UsdUnits): void {
    if (cost <= 0n) return;
    for (const budget of budgets) if (!budget.reportOnly) this.localOf(budget).spent += cost;
    const redis = this.redis.ready;
    if (!redis) return;
    const pipeline = redis.pipeline();
    for (const budget of budgets) if (!budget.reportOnly) pipeline.incrby(this.redisName(budget), cost.toString());
    if (pipeline.length > 0) pipeline.exec().catch((error: unknown) => this.redis.unavailable(error));
  }

  /** One hash tag per budget and period: each is a counter of its own. */
  private redisName(budget: AppliedBudget): string {
    return `aigw:budget:${this.namespace}:{${budget.level}:${budget.subject}}:${budget.periodEnd ?? 'lifetime'}`;
  }

  private localOf(budget: AppliedBudget): LocalSpend {
    const id = `${budget.level}\0${budget.subject}`;
    let spend = this.local.get(id);
    if (!spend) this.local.set(id, (spend = { periodEnd: budget.periodEnd, spent: 0n }));
    else if (spend.periodEnd === budget.periodEnd) return spend;
    else if (spend.periodEnd !== budget.periodEnd) {
      // A new period starts from nothing; a late call of an older one does not move the period back.
      if (budget.periodEnd === null || spend.periodEnd === null || budget.periodEnd > spend.periodEnd) {
        spend.periodEnd = budget.periodEnd;
        spend.spent = 0n;
      }
    }
    return spend;
  }
}
