import { DateTime, IANAZone } from 'luxon';
import { BUDGET_DURATION } from '../keys/dto/key-fields';

/** What budget enforcement needs of a key. */
export interface KeyBudget {
  budgetDuration: string | null;
  budgetResetAt: number | null;
  createdAt: number;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

// A key's budget_duration is read on every call, and keys share a handful of durations: each is parsed once.
const PARSED_DURATIONS = new Map<string, { unit: string; amount: number }>();

function parsedDuration(duration: string): { unit: string; amount: number } {
  let parsed = PARSED_DURATIONS.get(duration);
  if (parsed) return parsed;
  const unit = BUDGET_DURATION.exec(duration)?.[1];
  if (unit === undefined) throw new Error(`not a budget duration: ${duration}`);
  parsed = { unit, amount: Number.parseInt(duration, 10) };
  if (PARSED_DURATIONS.size >= 1024) PARSED_DURATIONS.clear();
  PARSED_DURATIONS.set(duration, parsed);
  return parsed;
}

/** `at` moved on by `count` budget durations (negative: back); months are calendar months (UTC). */
function addDuration(at: number, duration: string, count: number): number {
  const { unit, amount: each } = parsedDuration(duration);
  const amount = each * count;
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

/**
 * When a calendar-aligned budget period ends (LiteLLM's standardised resets, in `timeZone`): `1d`
 * and `24h` at the next midnight, `7d` on the next Monday at midnight, `30d` and `Nmo` on the first
 * of a month at midnight; other day counts at a midnight N days apart, shorter ones on the clock
 * (multiples of the duration since the epoch). Every replica computes the same period from the
 * time alone, with no reset to persist or schedule.
 */
export function calendarPeriodEnd(duration: string, now: number, timeZone: string): number {
  const unit = BUDGET_DURATION.exec(duration)?.[1];
  if (unit === undefined) throw new Error(`not a budget duration: ${duration}`);
  const amount = Number.parseInt(duration, 10);
  const local = DateTime.fromMillis(now, { zone: timeZone });
  if (unit === 'mo' || (unit === 'd' && amount === 30)) {
    const months = unit === 'mo' ? amount : 1;
    const start = local.startOf('month');
    // Months since the epoch's month, so that `2mo` periods are the same on every replica.
    const index = (start.year - 1970) * 12 + (start.month - 1);
    return start.plus({ months: months - (index % months) }).toMillis();
  }
  if (unit === 'd' && amount === 7) return local.startOf('week').plus({ weeks: 1 }).toMillis();
  if (unit === 'd' || (unit === 'h' && amount % 24 === 0)) {
    const days = unit === 'd' ? amount : amount / 24;
    const start = local.startOf('day');
    const index = Math.round(start.setZone('UTC', { keepLocalTime: true }).toMillis() / UNIT_MS_DAY);
    return start.plus({ days: days - (index % days) }).toMillis();
  }
  const length = addDuration(0, duration, 1);
  return (Math.floor(now / length) + 1) * length;
}

const UNIT_MS_DAY = 86_400_000;

/** Whether `timeZone` is an IANA time zone this process knows (`UTC`, `Europe/Paris`, `US/Eastern`). */
export function isTimeZone(timeZone: string): boolean {
  return IANAZone.isValidZone(timeZone);
}
