import { nominalRetryDelay, RETRY_BASE_MS, RETRY_CAP_MS, retryDelay } from './retry-schedule';

describe('the retry schedule', () => {
  it('starts at 5 s and doubles up to a cap of 5 min', () => {
    const nominal = Array.from({ length: 10 }, (_, i) => nominalRetryDelay(i + 1) / 1000);
    expect(nominal).toEqual([5, 10, 20, 40, 80, 160, 300, 300, 300, 300]);
    expect(nominalRetryDelay(10_000)).toBe(RETRY_CAP_MS);
    expect(() => nominalRetryDelay(0)).toThrow(RangeError);
  });

  it('jitters within 20 % of the nominal delay, never under 5 s nor over 5 min', () => {
    const windows = [1, 2, 3, 6, 7, 50].map((n) => [retryDelay(n, 0) / 1000, retryDelay(n, 0.999999) / 1000]);
    expect(windows).toEqual([
      [5, 6],
      [8, 12],
      [16, 24],
      [128, 192],
      [240, 300],
      [240, 300],
    ]);
    for (let n = 1; n <= 12; n++) {
      for (const random of [0, 0.1, 0.5, 0.9, 0.999]) {
        const delay = retryDelay(n, random);
        expect(delay).toBeGreaterThanOrEqual(RETRY_BASE_MS);
        expect(delay).toBeLessThanOrEqual(RETRY_CAP_MS);
        expect(Math.abs(delay - nominalRetryDelay(n))).toBeLessThanOrEqual(0.2 * nominalRetryDelay(n) + 1);
      }
    }
  });

  it('spreads deliveries that failed together', () => {
    const delays = new Set([0.05, 0.25, 0.45, 0.65, 0.85].map((random) => retryDelay(4, random)));
    expect(delays.size).toBe(5);
  });
});
