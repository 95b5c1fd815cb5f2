/** First retry after 5 s, doubling, never more than 5 min apart (the contract's Limits). */
export const RETRY_BASE_MS = 5_000;
export const RETRY_CAP_MS = 300_000;
/** Spread around the nominal delay, so deliveries that failed together do not retry together. */
export const RETRY_JITTER = 0.2;

/** The nominal delay after `failedAttempts` failures: 5 s, 10 s, 20 s … capped at 5 min. */
export function nominalRetryDelay(failedAttempts: number): number {
  if (failedAttempts < 1) throw new RangeError('a retry follows at least one failed attempt');
  const doublings = Math.min(failedAttempts - 1, 16);
  return Math.min(RETRY_BASE_MS * 2 ** doublings, RETRY_CAP_MS);
}

/**
 * The delay used: uniform within ±20 % of the nominal one, cut to [5 s, 5 min] so the first
 * retry is never sooner than 5 s and none later than 5 min (5–6 s, 8–12 s, 16–24 s … 4–5 min).
 * `random` is in [0, 1).
 */
export function retryDelay(failedAttempts: number, random: number): number {
  const nominal = nominalRetryDelay(failedAttempts);
  const low = Math.max(RETRY_BASE_MS, nominal * (1 - RETRY_JITTER));
  const high = Math.min(RETRY_CAP_MS, nominal * (1 + RETRY_JITTER));
  return Math.round(low + (high - low) * Math.min(Math.max(random, 0), 1));
}
