import type { VerifiedKey } from '../keys/key-verifier';

/** The instant a request is admitted or settled, and the windows it falls in. */
export interface LimitMoment {
  now: number;
  /** Index of the fixed one-minute window rpm and tpm count in. */
  minute: number;
  minuteEndsAt: number;
  /** End of the key's budget period; null for a lifetime budget or none. */
  periodEnd: number | null;
}

/** What a store saw when it admitted a request. */
export interface CountedUsage {
  /** Requests in this minute, this one included (0 without rpm_limit). */
  requests: number;
  /** Tokens used in this minute (0 without tpm_limit). */
  tokens: number;
  /** Requests in flight, this one included (0 without max_parallel_requests). */
  parallel: number;
  /** Spend counted against max_budget: the current period's, or the lifetime's without budget_duration. */
  budgetSpend: number;
  lifetimeSpend: number;
  /** Requests to the call's alias in this minute, this one included (0 without its model_rpm_limit). */
  modelRequests: number;
  /** Tokens used on the call's alias in this minute (0 without its model_tpm_limit). */
  modelTokens: number;
  /** USD the key's other calls in flight hold against max_budget (their worst-case cost), this one's not included (0 without max_budget). */
  reserved: number;
}

/** A call's slot in the counters and what it holds of the key's budget until it settles. */
export interface CallSlot {
  /** Names the call's parallel slot and its reservation (unique per replica and call). */
  id: string;
  /** USD held against max_budget while the call is in flight: its worst-case cost (0: none). */
  reserve: number;
  /** The alias called, and the key's rate limits on it (model_rpm_limit / model_tpm_limit), when it has any. */
  model?: { alias: string; rpm: number | null; tpm: number | null };
}

/** Where a key's counters live: this process, or Redis shared by every replica. */
export interface KeyCounters {
  /** Counts the request in its minute, takes its parallel slot and holds its reservation; reads the rest. */
  acquire(key: VerifiedKey, at: LimitMoment, slot: CallSlot): Promise<CountedUsage>;
  /** Takes back what acquire counted and held, for a refused request. */
  refund(key: VerifiedKey, at: LimitMoment, slot: CallSlot): void;
  /** The call ended: its tokens and cost are counted, its slot and reservation freed. Returns the lifetime spend after it. */
  settle(key: VerifiedKey, at: LimitMoment, slot: CallSlot, usage: { tokens: number; cost: number }, admitted: CountedUsage): number;
}
