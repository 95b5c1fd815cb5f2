const HOUR_MS = 3_600_000;
const HOURS = 24;

interface HourCounts {
  hour: number;
  calls: number;
  errors: number;
}

/**
 * Tool calls and failed ones per virtual server over the last 24 hours, in hourly buckets kept
 * beside the Prometheus counters (the same calls, this replica's): the dashboard summary reads
 * these, never logs. At most 24 small buckets per server.
 */
export class RecentToolCalls {
  private readonly byServer = new Map<string, HourCounts[]>();

  constructor(private readonly now: () => number = Date.now) {}

  record(server: string, failed: boolean): void {
    const hour = Math.floor(this.now() / HOUR_MS);
    let buckets = this.byServer.get(server);
    if (!buckets) {
      buckets = [];
      this.byServer.set(server, buckets);
    }
    let current = buckets[buckets.length - 1];
    if (current?.hour !== hour) {
      current = { hour, calls: 0, errors: 0 };
      buckets.push(current);
      while (buckets.length > 0 && buckets[0].hour <= hour - HOURS) buckets.shift();
    }
    current.calls += 1;
    if (failed) current.errors += 1;
  }

  /** Calls and errors of `server` within the last 24 hours (by whole hours). */
  lastDay(server: string): { calls: number; errors: number } {
    const since = Math.floor(this.now() / HOUR_MS) - HOURS;
    let calls = 0;
    let errors = 0;
    for (const bucket of this.byServer.get(server) ?? []) {
      if (bucket.hour <= since) continue;
      calls += bucket.calls;
      errors += bucket.errors;
    }
    return { calls, errors };
  }
}
