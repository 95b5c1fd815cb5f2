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

// A call's hold lapses after this long (a replica that crashed with calls in flight), as the key's parallel slots do.
const HOLD_LAPSE_MS = 10 * 60_000;

/** What a call in flight holds of its budgets: its worst-case cost, under a name unique to the call. */
export interface BudgetHold {
  readonly slot: string;
  readonly amount: UsdUnits;
}

/** What each budget had spent when a call was admitted, and what the other calls in flight hold of it. */
export interface BudgetStanding {
  spent: UsdUnits[];
  held: UsdUnits[];
}

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
  /** What this replica's calls in flight hold of each budget (local counting: every call is this replica's). */
  private readonly localHolds = new Map<string, UsdUnits>();
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
    return (await this.standing(budgets)).spent;
  }

  /**
   * What each budget has spent, and what the other calls in flight hold of it; with `hold`, the
   * call's own worst-case cost is held on each first (held, then read: of two replicas admitting
   * at once, each sees the other's). Release it with `release` when the call settles or is refused.
   */
  async standing(budgets: readonly AppliedBudget[], hold?: BudgetHold): Promise<BudgetStanding> {
    const holding = hold !== undefined && hold.amount > 0n;
    const redis = this.redis.ready;
    if (redis) {
      try {
        const pipeline = redis.pipeline();
        const reads: { spent: number; held: number }[] = [];
        const now = Date.now();
        for (const budget of budgets) {
          if (budget.reportOnly) {
            reads.push({ spent: -1, held: -1 });
            continue;
          }
          const name = this.redisName(budget);
          pipeline.set(name, this.localOf(budget).spent.toString(), 'NX');
          if (budget.periodEnd === null) pipeline.pexpire(name, LIFETIME_TTL_MS);
          else pipeline.pexpireat(name, budget.periodEnd + PERIOD_GRACE_MS);
          pipeline.get(name);
          const spent = pipeline.length - 1;
          let held = -1;
          if (hold !== undefined) {
            const holds = `${name}:held`;
            pipeline.zremrangebyscore(holds, '-inf', now);
            if (holding) pipeline.zadd(holds, now + HOLD_LAPSE_MS, member(hold));
            pipeline.zrange(holds, 0, -1);
            held = pipeline.length - 1;
            pipeline.pexpire(holds, HOLD_LAPSE_MS);
          }
          reads.push({ spent, held });
        }
        const results = await pipeline.exec();
        if (!results) throw new Error('Redis answered no results');
        for (const [error] of results) if (error) throw error;
        return {
          spent: reads.map(({ spent }) => (spent < 0 ? 0n : BigInt(String(results[spent]?.[1] ?? '0')))),
          held: reads.map(({ held }) => (held < 0 || hold === undefined ? 0n : heldByOthers(results[held]?.[1], member(hold)))),
        };
      } catch (error) {
        this.redis.unavailable(error);
      }
    }
    if (this.redis.client && this.withoutRedis === 'closed' && budgets.some((budget) => !budget.reportOnly)) throw new BudgetsUnavailable('Redis is unreachable');
    const held = budgets.map((budget) => {
      if (budget.reportOnly || hold === undefined) return 0n;
      const id = holdId(budget);
      const others = this.localHolds.get(id) ?? 0n;
      if (holding) this.localHolds.set(id, others + hold.amount);
      return others;
    });
    return { spent: budgets.map((budget) => (budget.reportOnly ? 0n : this.localOf(budget).spent)), held };
  }

  /** A call admitted with `standing(…, hold)` settled (after its cost was added) or was refused: what it held is free again. */
  release(budgets: readonly AppliedBudget[], hold: BudgetHold): void {
    if (hold.amount <= 0n) return;
    for (const budget of budgets) {
      if (budget.reportOnly) continue;
      const id = holdId(budget);
      const left = (this.localHolds.get(id) ?? 0n) - hold.amount;
      if (left > 0n) this.localHolds.set(id, left);
      else this.localHolds.delete(id);
    }
    const redis = this.redis.ready;
    if (!redis) return;
    const pipeline = redis.pipeline();
    for (const budget of budgets) if (!budget.reportOnly) pipeline.zrem(`${this.redisName(budget)}:held`, member(hold));
    if (pipeline.length > 0) pipeline.exec().catch((error: unknown) => this.redis.unavailable(error));
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

const member = (hold: BudgetHold) => `${hold.slot}|${hold.amount}`;
const holdId = (budget: AppliedBudget) => `${budget.level}\0${budget.subject}\0${budget.periodEnd ?? 'lifetime'}`;

/** What the members hold together, the call's own member left out. */
function heldByOthers(members: unknown, own: string): UsdUnits {
  let total = 0n;
  if (!Array.isArray(members)) return total;
  for (const entry of members) {
    if (typeof entry !== 'string' || entry === own) continue;
    const amount = entry.slice(entry.lastIndexOf('|') + 1);
    if (/^\d+$/.test(amount)) total += BigInt(amount);
  }
  return total;
}
