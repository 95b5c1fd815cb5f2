import type { ProjectSpendReport, SpendTotals } from '../api/gateway-api';

/** Both ends included, as UTC days (YYYY-MM-DD), as the spend report counts them. */
export interface UsagePeriod {
  from: string;
  to: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The last `days` UTC days up to today. */
export function lastDays(days: number, now = new Date()): UsagePeriod {
  return { from: dayOf(now.getTime() - (days - 1) * DAY_MS), to: dayOf(now.getTime()) };
}

const NO_SPEND: SpendTotals = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, estimated_requests: 0, estimated_cost_usd: 0, cache_hit_requests: 0 };

/** A day's spend, and its keys' calls that failed (an error answer, or no upstream answered). */
export type UsageDay = SpendTotals & { day: string; errors: number };

/** Every day of the period with its figures, days without calls as zero, so a chart's axis is the calendar. */
export function dailySeries(report: Pick<ProjectSpendReport, 'by_day' | 'calls_by_day'>, period: UsagePeriod): UsageDay[] {
  const byDay = new Map(report.by_day.map((row) => [row.day, row]));
  const errorsByDay = new Map(report.calls_by_day.map((row) => [row.day, row.errors]));
  const series: UsageDay[] = [];
  for (let time = Date.parse(`${period.from}T00:00:00Z`); time <= Date.parse(`${period.to}T00:00:00Z`); time += DAY_MS) {
    const day = dayOf(time);
    series.push({ ...NO_SPEND, ...byDay.get(day), day, errors: errorsByDay.get(day) ?? 0 });
  }
  return series;
}

/** Spend of each provider, from the deployments that answered. */
export function byProvider(report: Pick<ProjectSpendReport, 'by_deployment'>): (SpendTotals & { provider: string })[] {
  const providers = new Map<string, SpendTotals & { provider: string }>();
  for (const row of report.by_deployment) {
    const sum = providers.get(row.provider) ?? { ...NO_SPEND, provider: row.provider };
    for (const field of Object.keys(NO_SPEND) as (keyof SpendTotals)[]) sum[field] += row[field];
    providers.set(row.provider, sum);
  }
  return [...providers.values()].sort((a, b) => b.cost_usd - a.cost_usd);
}

const CSV_COLUMNS = ['day', 'requests', 'errors', 'prompt_tokens', 'completion_tokens', 'cost_usd', 'cache_hit_requests', 'estimated_requests', 'estimated_cost_usd'] as const;

/** The daily figures as CSV (RFC 4180, a header line), for a spreadsheet. */
export function dailyCsv(series: UsageDay[]): string {
  return [CSV_COLUMNS.join(','), ...series.map((row) => CSV_COLUMNS.map((column) => String(row[column])).join(','))].join('\r\n') + '\r\n';
}
