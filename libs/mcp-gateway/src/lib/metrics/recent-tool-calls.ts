const HOUR_MS = 3_600_000;
const HOURS = 24;

interface HourCounts {
  hour: number;
  calls: number;
  errors: number;
  /** Seconds the calls took until the upstream answered, added up. */
  seconds: number;
}

/** One tool's calls in one hour of the last 24: the admin UI's charts. */
export interface ToolCallHour {
  /** The hour's start, ISO 8601. */
  hour: string;
  tool: string;
  calls: number;
  errors: number;
  /** Mean time to the upstream's answer, in milliseconds; null for an hour without calls. */
  mean_latency_ms: number | null;
}

/**
 * Tool calls and failed ones per virtual server over the last 24 hours, in hourly buckets kept
 * beside the Prometheus counters (the same calls, this replica's): the dashboard summary and the
 * admin UI's per-tool charts read these, never logs. At most 24 small buckets per server and per
 * tool (tool names are the upstreams' listed names or `(unlisted)`, never free input).
 */
export class RecentToolCalls {
  private readonly byServer = new Map<string, HourCounts[]>();
  private readonly byTool = new Map<string, Map<string, HourCounts[]>>();

  constructor(private readonly now: () => number = Date.now) {}

  record(server: string, failed: boolean, tool?: string, seconds = 0): void {
    const hour = Math.floor(this.now() / HOUR_MS);
    add(bucketsOf(this.byServer, server), hour, failed, seconds);
    if (tool === undefined) return;
    let tools = this.byTool.get(server);
    if (!tools) {
      tools = new Map();
      this.byTool.set(server, tools);
    }
    add(bucketsOf(tools, tool), hour, failed, seconds);
  }

  /** Calls and errors of `server` within the last 24 hours (by whole hours). */
  lastDay(server: string): { calls: number; errors: number } {
    let calls = 0;
    let errors = 0;
    for (const bucket of this.recent(this.byServer.get(server))) {
      calls += bucket.calls;
      errors += bucket.errors;
    }
    return { calls, errors };
  }

  /** Each tool of `server` hour by hour over the last 24 hours, oldest first, hours without calls left out. */
  byToolLastDay(server: string): ToolCallHour[] {
    const hours: ToolCallHour[] = [];
    for (const [tool, buckets] of this.byTool.get(server) ?? []) {
      for (const bucket of this.recent(buckets)) {
        hours.push({
          hour: new Date(bucket.hour * HOUR_MS).toISOString(),
          tool,
          calls: bucket.calls,
          errors: bucket.errors,
          mean_latency_ms: bucket.calls > 0 ? Math.round((bucket.seconds / bucket.calls) * 1000 * 10) / 10 : null,
        });
      }
    }
    return hours.sort((a, b) => a.hour.localeCompare(b.hour) || a.tool.localeCompare(b.tool));
  }

  private recent(buckets: HourCounts[] | undefined): HourCounts[] {
    const since = Math.floor(this.now() / HOUR_MS) - HOURS;
    return (buckets ?? []).filter((bucket) => bucket.hour > since);
  }
}

function bucketsOf(map: Map<string, HourCounts[]>, key: string): HourCounts[] {
  let buckets = map.get(key);
  if (!buckets) {
    buckets = [];
    map.set(key, buckets);
  }
  return buckets;
}

function add(buckets: HourCounts[], hour: number, failed: boolean, seconds: number): void {
  let current = buckets[buckets.length - 1];
  if (current?.hour !== hour) {
    current = { hour, calls: 0, errors: 0, seconds: 0 };
    buckets.push(current);
    while (buckets.length > 0 && buckets[0].hour <= hour - HOURS) buckets.shift();
  }
  current.calls += 1;
  current.seconds += seconds;
  if (failed) current.errors += 1;
}
