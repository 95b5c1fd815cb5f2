/** One hour of calls of one series (a server's tool, an agent's A2A method), as the admin API counts them. */
export interface CallHour {
  hour: string;
  calls: number;
  errors: number;
  mean_latency_ms: number | null;
}

/** One hour of calls, every series as a column (`<name>`: calls, `<name> errors`, `<name> ms`). */
export type HourRow = { hour: string } & Record<string, number | string>;

const HOUR_MS = 3_600_000;

/**
 * The last 24 hours up to `now`, each with every series' calls, errors and mean latency (0 for
 * an hour without calls), so the charts' axis is the clock; the series (named by `nameOf`: the
 * tool, the method) by calls, the busiest first.
 */
export function hourlySeries<Hour extends CallHour>(hours: readonly Hour[], nameOf: (hour: Hour) => string, now = new Date()): { names: string[]; rows: HourRow[] } {
  const totals = new Map<string, number>();
  for (const hour of hours) totals.set(nameOf(hour), (totals.get(nameOf(hour)) ?? 0) + hour.calls);
  const names = [...totals.keys()].sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0) || a.localeCompare(b));
  const byHour = new Map<string, Hour[]>();
  for (const hour of hours) byHour.set(hour.hour, [...(byHour.get(hour.hour) ?? []), hour]);
  const last = Math.floor(now.getTime() / HOUR_MS);
  const rows: HourRow[] = [];
  for (let at = last - 23; at <= last; at++) {
    const iso = new Date(at * HOUR_MS).toISOString();
    const row: HourRow = { hour: `${iso.slice(11, 16)}` };
    for (const name of names) {
      const found = byHour.get(iso)?.find((hour) => nameOf(hour) === name);
      row[name] = found?.calls ?? 0;
      row[`${name} errors`] = found?.errors ?? 0;
      row[`${name} ms`] = found?.mean_latency_ms ?? 0;
    }
    rows.push(row);
  }
  return { names, rows };
}
