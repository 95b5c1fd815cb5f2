import type { ToolCallHour } from '../api/mcp-gateway-api';

/** One hour of a server's tool calls, every tool as a column (`<tool>`: calls, `<tool> errors`, `<tool> ms`). */
export type HourRow = { hour: string } & Record<string, number | string>;

const HOUR_MS = 3_600_000;

/**
 * The last 24 hours up to `now`, each with every tool's calls, errors and mean latency (0 for an
 * hour without calls), so the charts' axis is the clock; the tools by calls, the busiest first.
 */
export function hourlySeries(hours: readonly ToolCallHour[], now = new Date()): { tools: string[]; rows: HourRow[] } {
  const totals = new Map<string, number>();
  for (const hour of hours) totals.set(hour.tool, (totals.get(hour.tool) ?? 0) + hour.calls);
  const tools = [...totals.keys()].sort((a, b) => (totals.get(b) ?? 0) - (totals.get(a) ?? 0) || a.localeCompare(b));
  const byHour = new Map<string, ToolCallHour[]>();
  for (const hour of hours) byHour.set(hour.hour, [...(byHour.get(hour.hour) ?? []), hour]);
  const last = Math.floor(now.getTime() / HOUR_MS);
  const rows: HourRow[] = [];
  for (let at = last - 23; at <= last; at++) {
    const iso = new Date(at * HOUR_MS).toISOString();
    const row: HourRow = { hour: `${iso.slice(11, 16)}` };
    for (const tool of tools) {
      const found = byHour.get(iso)?.find((hour) => hour.tool === tool);
      row[tool] = found?.calls ?? 0;
      row[`${tool} errors`] = found?.errors ?? 0;
      row[`${tool} ms`] = found?.mean_latency_ms ?? 0;
    }
    rows.push(row);
  }
  return { tools, rows };
}
