import type { VerifiedKey } from '../keys/key-verifier';
import { LRUCache } from 'lru-cache';
import { persistedBudgetSpend } from './budget-period';
import { plusUsd } from '../pricing/usd';
import { CallSlot, CountedUsage, KeyCounters, LimitMoment } from './key-counters';

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
  /** USD held against each key's max_budget by its calls in flight. */
  private readonly reserved = new Map<string, number>();
  private readonly spends = new LRUCache<string, SpendState>({ max: SPEND_STATES });

  acquire(key: VerifiedKey, at: LimitMoment, slot: CallSlot): Promise<CountedUsage> {
    const minute = this.minuteOf(key.id, at);
    if (key.rpmLimit !== null) minute.requests += 1;
    let parallel = 0;
    if (key.maxParallelRequests !== null) {
      parallel = (this.inFlight.get(key.id) ?? 0) + 1;
      this.inFlight.set(key.id, parallel);
    }
    const model = slot.model ? this.minuteOf(`${key.id}\0${slot.model.alias}`, at) : undefined;
    if (model && slot.model?.rpm != null) model.requests += 1;
    const spend = this.spendOf(key, at);
    let reserved = 0;
    if (key.maxBudget !== null) {
      reserved = this.reserved.get(key.id) ?? 0;
      if (slot.reserve > 0) this.reserved.set(key.id, plusUsd(reserved, slot.reserve));
    }
    return Promise.resolve({
      requests: key.rpmLimit !== null ? minute.requests : 0,
      tokens: minute.tokens,
      parallel,
      budgetSpend: spend.periodEnd === null ? spend.lifetime : spend.periodSpend,
      lifetimeSpend: spend.lifetime,
      modelRequests: model && slot.model?.rpm != null ? model.requests : 0,
      modelTokens: model?.tokens ?? 0,
      reserved,
    });
  }

  refund(key: VerifiedKey, at: LimitMoment, slot: CallSlot): void {
    if (key.rpmLimit !== null) {
      const minute = this.minutes.get(key.id);
      if (minute && minute.minute === at.minute) minute.requests -= 1;
    }
    if (slot.model?.rpm != null) {
      const model = this.minutes.get(`${key.id}\0${slot.model.alias}`);
      if (model && model.minute === at.minute) model.requests -= 1;
    }
    if (key.maxParallelRequests !== null) this.release(key.id);
    this.unreserve(key, slot);
  }

  settle(key: VerifiedKey, at: LimitMoment, slot: CallSlot, usage: { tokens: number; cost: number }): number {
    if (key.maxParallelRequests !== null) this.release(key.id);
    this.unreserve(key, slot);
    if (usage.tokens > 0) this.minuteOf(key.id, at).tokens += usage.tokens;
    if (usage.tokens > 0 && slot.model?.tpm != null) this.minuteOf(`${key.id}\0${slot.model.alias}`, at).tokens += usage.tokens;
    return this.addSpend(key, at, usage.cost);
  }

  /** Adds a call's cost; also called in Redis mode, so that a fallback starts from recent spend. */
  addSpend(key: VerifiedKey, at: LimitMoment, cost: number): number {
    const spend = this.spendOf(key, at);
    if (cost > 0) {
      spend.lifetime = plusUsd(spend.lifetime, cost);
      spend.periodSpend = plusUsd(spend.periodSpend, cost);
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

  private unreserve(key: VerifiedKey, slot: CallSlot): void {
    if (key.maxBudget === null || slot.reserve <= 0) return;
    const left = plusUsd(this.reserved.get(key.id) ?? 0, -slot.reserve);
    if (left > 0) this.reserved.set(key.id, left);
    else this.reserved.delete(key.id);
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
