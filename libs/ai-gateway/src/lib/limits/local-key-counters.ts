import type { VerifiedKey } from '../keys/key-verifier';
import { LRUCache } from 'lru-cache';
import { persistedBudgetSpend } from './budget-period';
import { addUsd } from '../pricing/usd';
import { CountedUsage, KeyCounters, LimitMoment } from './key-counters';

interface MinuteCounts {
  minute: number;
  requests: number;
  tokens: number;
}

interface SpendState {
  lifetime: number;
  periodEnd: number | null;
  periodSpend: number;
}

// Bounded: the least recently used key's spend state goes first and is seeded again from its row
// when the key comes back (by then its spend is long flushed and its cached row reloaded).
const SPEND_STATES = 100_000;

/** Counters in this process: no I/O on the request path; shared by nobody. */
export class LocalKeyCounters implements KeyCounters {
  private readonly minutes = new Map<string, MinuteCounts>();
  private readonly inFlight = new Map<string, number>();
  private readonly spends = new LRUCache<string, SpendState>({ max: SPEND_STATES });

  acquire(key: VerifiedKey, at: LimitMoment): Promise<CountedUsage> {
    const minute = this.minuteOf(key.id, at);
    if (key.rpmLimit !== null) minute.requests += 1;
    let parallel = 0;
    if (key.maxParallelRequests !== null) {
      parallel = (this.inFlight.get(key.id) ?? 0) + 1;
      this.inFlight.set(key.id, parallel);
    }
    const spend = this.spendOf(key, at);
    return Promise.resolve({
      requests: key.rpmLimit !== null ? minute.requests : 0,
      tokens: minute.tokens,
      parallel,
      budgetSpend: spend.periodEnd === null ? spend.lifetime : spend.periodSpend,
      lifetimeSpend: spend.lifetime,
    });
  }

  refund(key: VerifiedKey, at: LimitMoment): void {
    if (key.rpmLimit !== null) {
      const minute = this.minutes.get(key.id);
      if (minute && minute.minute === at.minute) minute.requests -= 1;
    }
    if (key.maxParallelRequests !== null) this.release(key.id);
  }

  settle(key: VerifiedKey, at: LimitMoment, _slot: string, usage: { tokens: number; cost: number }): number {
    if (key.maxParallelRequests !== null) this.release(key.id);
    if (usage.tokens > 0) this.minuteOf(key.id, at).tokens += usage.tokens;
    return this.addSpend(key, at, usage.cost);
  }

  /** Adds a call's cost; also called in Redis mode, so that a fallback starts from recent spend. */
  addSpend(key: VerifiedKey, at: LimitMoment, cost: number): number {
    const spend = this.spendOf(key, at);
    if (cost > 0) {
      spend.lifetime = addUsd(spend.lifetime, cost);
      spend.periodSpend = addUsd(spend.periodSpend, cost);
      this.spends.set(key.id, spend);
    }
    return spend.lifetime;
  }

  private minuteOf(keyId: string, at: LimitMoment): MinuteCounts {
    let counts = this.minutes.get(keyId);
    if (!counts || counts.minute !== at.minute) {
      counts = { minute: at.minute, requests: 0, tokens: 0 };
      this.minutes.set(keyId, counts);
    }
    return counts;
  }

  private release(keyId: string): void {
    const left = (this.inFlight.get(keyId) ?? 1) - 1;
    if (left > 0) this.inFlight.set(keyId, left);
    else this.inFlight.delete(keyId);
  }

  private spendOf(key: VerifiedKey, at: LimitMoment): SpendState {
    let spend = this.spends.get(key.id);
    if (!spend) {
      spend = { lifetime: key.spend, periodEnd: at.periodEnd, periodSpend: persistedBudgetSpend(key, at.periodEnd) };
      this.spends.set(key.id, spend);
    } else if (spend.periodEnd !== at.periodEnd) {
      // A new budget period (or a changed budget_duration) starts from what is persisted for it, normally 0.
      spend.periodEnd = at.periodEnd;
      spend.periodSpend = persistedBudgetSpend({ ...key, spend: spend.lifetime }, at.periodEnd);
    }
    return spend;
  }
}
