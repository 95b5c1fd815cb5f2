import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ProviderError } from '@arbor/provider-adapters';
import { GatewayClock } from '../gateway-clock';
import type { VerifiedKey } from '../keys/key-verifier';
import { BudgetAlerts, crossesThreshold } from '../budgets/budget-alerts';
import { plusUsd } from '../pricing/usd';
import { SpendRecorder } from '../spend/spend-recorder';
import { budgetPeriodEnd } from './budget-period';
import { GatewayRedis } from './gateway-redis';
import { CallSlot, CountedUsage, KeyCounters, LimitMoment } from './key-counters';
import { budgetExceeded, budgetHeldInFlight, modelRateExceeded, parallelRequestsExceeded, requestsPerMinuteExceeded, tokensPerMinuteExceeded } from './limit-refusals';
import { LocalKeyCounters } from './local-key-counters';
import { rateLimitHeaders } from './rate-limit-headers';
import { RedisKeyCounters } from './redis-key-counters';

const MINUTE_MS = 60_000;

/** A request a key may make; settle it exactly once when the call ends, failed or not. */
export interface KeyAdmission {
  /** x-ratelimit-* for the key's own rpm/tpm limits (none when it has none). */
  rateLimitHeaders(): Record<string, string>;
  /** Counts the call's tokens and cost and frees its parallel slot; keySpend is the key's lifetime spend after it. */
  settle(usage: { totalTokens: number; cost: number }): { keySpend: number };
}

/**
 * Enforces a virtual key's max_parallel_requests, rpm_limit, tpm_limit and max_budget. Counters are
 * in process by default; with AIGW_REDIS_URL they are shared by every replica, and while Redis is
 * unreachable each replica falls back to its own (warned once per outage by GatewayRedis).
 */
@Injectable()
export class KeyLimiter {
  private readonly local: LocalKeyCounters;
  private readonly shared: RedisKeyCounters | undefined;
  // Names this replica's parallel slots in Redis.
  private readonly replica = randomUUID();
  private slots = 0;

  constructor(
    private readonly clock: GatewayClock,
    private readonly redis: GatewayRedis,
    private readonly spend: SpendRecorder,
    private readonly alerts: BudgetAlerts,
  ) {
    this.local = new LocalKeyCounters();
    if (redis.client)
      this.shared = new RedisKeyCounters(
        () => redis.ready,
        (error) => redis.unavailable(error),
      );
  }

  /**
   * Admits the request or throws the ProviderError the client gets (429, or 400 budget_exceeded).
   * `reserve`: the call's worst-case cost, held against max_budget until it settles, so that calls
   * admitted together cannot spend past the budget by more than what they were admitted holding.
   */
  async admit(key: VerifiedKey, reserve = 0, alias?: string): Promise<KeyAdmission> {
    const at = this.moment(key);
    this.slots += 1;
    const model = alias !== undefined ? key.modelRateLimits?.get(alias) : undefined;
    const slot: CallSlot = {
      id: `${this.replica}:${this.slots}`,
      reserve: key.maxBudget !== null ? positive(reserve) : 0,
      ...(model && alias !== undefined ? { model: { alias, ...model } } : {}),
    };
    let counters: KeyCounters = this.local;
    let usage: CountedUsage | undefined;
    if (this.shared && this.redis.ready) {
      try {
        usage = await this.shared.acquire(key, at, slot);
        counters = this.shared;
      } catch (error) {
        this.redis.unavailable(error);
      }
    }
    usage ??= await this.local.acquire(key, at, slot);
    const headers = rateLimitHeaders({ rpmLimit: key.rpmLimit, tpmLimit: key.tpmLimit, requests: usage.requests, tokens: usage.tokens, resetMs: at.minuteEndsAt - at.now });
    const refusal = refusalFor(key, usage, at, headers, slot);
    if (refusal) {
      counters.refund(key, at, slot);
      throw refusal;
    }
    return this.admission(key, counters, slot, usage, headers);
  }

  private admission(key: VerifiedKey, counters: KeyCounters, slot: CallSlot, admitted: CountedUsage, headers: Record<string, string>): KeyAdmission {
    let settled: { keySpend: number } | undefined;
    return {
      rateLimitHeaders: () => headers,
      settle: ({ totalTokens, cost }) => {
        if (settled) return settled;
        const at = this.moment(key);
        const usage = { tokens: positive(Math.round(totalTokens)), cost: positive(cost) };
        const keySpend = counters.settle(key, at, slot, usage, admitted);
        if (counters !== this.local) this.local.addSpend(key, at, usage.cost);
        this.spend.recordKeySpend(key.id, usage.cost, at.periodEnd);
        // soft_budget: the call that takes the period's spend (as max_budget counts it) to it raises the alert.
        if (key.softBudget !== null && usage.cost > 0 && admitted.budgetSpend < key.softBudget) {
          const after = plusUsd(admitted.budgetSpend, usage.cost);
          if (after >= key.softBudget) this.alerts.softBudgetReached(key, after, at.periodEnd);
        }
        // 50, 80 and 100 % of max_budget, each alerted once per period.
        if (key.maxBudget !== null && usage.cost > 0) {
          const after = plusUsd(admitted.budgetSpend, usage.cost);
          if (crossesThreshold(key.maxBudget, admitted.budgetSpend, after)) {
            const budget = {
              level: 'key',
              subject: key.id,
              description: `the max_budget of key ${key.id}`,
              maxBudget: key.maxBudget,
              periodEnd: at.periodEnd,
              project: key.project,
              token: key.keyHash,
            };
            this.alerts.spent(budget, admitted.budgetSpend, after);
          }
        }
        settled = { keySpend };
        return settled;
      },
    };
  }

  private moment(key: VerifiedKey): LimitMoment {
    const now = this.clock.now();
    const minute = Math.floor(now / MINUTE_MS);
    return { now, minute, minuteEndsAt: (minute + 1) * MINUTE_MS, periodEnd: budgetPeriodEnd(key, now) };
  }
}

// Money first (LiteLLM checks the budget before rates), then the rates.
function refusalFor(key: VerifiedKey, usage: CountedUsage, at: LimitMoment, headers: Record<string, string>, slot: CallSlot): ProviderError | undefined {
  if (key.maxBudget !== null && usage.budgetSpend >= key.maxBudget) return budgetExceeded(usage.budgetSpend, key.maxBudget);
  if (key.maxBudget !== null && usage.reserved > 0 && plusUsd(usage.budgetSpend, usage.reserved) >= key.maxBudget)
    return budgetHeldInFlight(usage.budgetSpend, key.maxBudget, usage.reserved);
  if (key.maxParallelRequests !== null && usage.parallel > key.maxParallelRequests) return parallelRequestsExceeded(key.maxParallelRequests, headers);
  const retryAfterS = Math.max(1, Math.ceil((at.minuteEndsAt - at.now) / 1000));
  if (key.rpmLimit !== null && usage.requests > key.rpmLimit) return requestsPerMinuteExceeded(key.rpmLimit, retryAfterS, headers);
  if (key.tpmLimit !== null && usage.tokens >= key.tpmLimit) return tokensPerMinuteExceeded(key.tpmLimit, usage.tokens, retryAfterS, headers);
  const model = slot.model;
  if (model?.rpm != null && usage.modelRequests > model.rpm) return modelRateExceeded(model.alias, 'requests', model.rpm, retryAfterS, headers);
  if (model?.tpm != null && usage.modelTokens >= model.tpm) return modelRateExceeded(model.alias, 'tokens', model.tpm, retryAfterS, headers);
  return undefined;
}

function positive(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}
