import { BUDGET_DURATION } from '../keys/dto/key-fields';

/** What budget enforcement needs of a key. */
export interface KeyBudget {
  budgetDuration: string | null;
  budgetResetAt: number | null;
  createdAt: number;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `at` moved on by `count` budget durations (negative: back); months are calendar months (UTC). */
function addDuration(at: number, duration: string, count: number): number {
  const unit = BUDGET_DURATION.exec(duration)?.[1];
  if (unit === undefined) throw new Error(`not a budget duration: ${duration}`);
  const amount = Number.parseInt(duration, 10) * count;
  if (unit === 'mo') {
    const date = new Date(at);
    date.setUTCMonth(date.getUTCMonth() + amount);
    return date.getTime();
  }
  return at + amount * (UNIT_MS[unit] ?? 0);
}

/**
 * When the key's current budget period ends, null for a lifetime budget. Periods lie end to end,
 * both ways, from the persisted reset time (else one duration after the key's creation), so every
 * replica computes the same period without talking to the others, and a shortened budget_duration
 * takes effect at once.
 */
export function budgetPeriodEnd(key: KeyBudget, now: number): number | null {
  const duration = key.budgetDuration;
  if (duration === null) return null;
  const anchor = key.budgetResetAt ?? addDuration(key.createdAt, duration, 1);
  if (!duration.endsWith('mo')) {
    const length = addDuration(0, duration, 1);
    return anchor + (Math.floor((now - anchor) / length) + 1) * length;
  }
  let end = anchor;
  while (end <= now) end = addDuration(end, duration, 1);
  while (addDuration(end, duration, -1) > now) end = addDuration(end, duration, -1);
  return end;
}

/** The spend of the current period as persisted, 0 when the persisted one belongs to an earlier period. */
export function persistedBudgetSpend(key: KeyBudget & { spend: number; budgetSpend: number }, periodEnd: number | null): number {
  if (periodEnd === null) return key.spend;
  return key.budgetResetAt === periodEnd ? key.budgetSpend : 0;
}
