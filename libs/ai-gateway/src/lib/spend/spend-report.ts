import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GatewayClock } from '../gateway-clock';
import { KeyNotFound } from '../keys/keys.exception';
import { VirtualKey } from '../keys/virtual-key.entity';
import { budgetPeriodEnd, persistedBudgetSpend } from '../limits/budget-period';
import { SpendRecorder } from './spend-recorder';
import { addUsd } from '../pricing/usd';

import type { KeySpendReport, ProjectSpendReport, SpendBreakdown, SpendTotals } from './spend-report.response';

export type { KeySpendReport, ProjectSpendReport, SpendBreakdown, SpendTotals };

// calls_hourly counts every call of a project's keys and its failures, by hour; here by UTC day of the range.
const CALLS_BY_DAY = `
  select (c.hour at time zone 'UTC')::date::text as day, sum(c.calls)::int as calls, sum(c.errors)::int as errors
    from calls_hourly c
   where c.project = $1
     and ($2::date is null or c.hour >= ($2::date)::timestamp at time zone 'UTC')
     and ($3::date is null or c.hour < ($3::date + 1)::timestamp at time zone 'UTC')
   group by 1 order by 1`;

interface SpendRow {
  day: string;
  key_id: string | null;
  key_hint: string | null;
  key_alias: string | null;
  repository: string | null;
  user_id: string | null;
  alias: string;
  deployment_id: string;
  provider: string;
  requests: string;
  prompt_tokens: string;
  completion_tokens: string;
  /** numeric columns: their exact decimal text. */
  cost_usd: string;
  estimated_requests: string;
  estimated_cost_usd: string;
  cache_hit_requests: string;
}

const SPEND_ROWS = (where: string) => `
  select s.day::text as day, s.key_id, k.key_hint, k.key_alias, k.repository, k.user_id, s.alias, s.deployment_id, s.provider,
         s.requests, s.prompt_tokens, s.completion_tokens, s.cost_usd, s.estimated_requests, s.estimated_cost_usd, s.cache_hit_requests
  from spend_daily s left join virtual_keys k on k.id = s.key_id
  where ${where} and ($2::date is null or s.day >= $2::date) and ($3::date is null or s.day <= $3::date)
  order by s.day, s.alias, s.deployment_id`;

/** The spend reports of the admin API, from spend_daily and the keys' spend columns. */
@Injectable()
export class SpendReports {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly recorder: SpendRecorder,
    private readonly clock: GatewayClock,
  ) {}

  async forKey(id: string, from?: string, to?: string): Promise<KeySpendReport> {
    await this.catchUp();
    const key = await this.dataSource.getRepository(VirtualKey).findOneBy({ id });
    if (!key) throw new KeyNotFound(id);
    const rows = await this.rows('s.key_id = $1', [id, from ?? null, to ?? null]);
    const budgetKey = {
      budgetDuration: key.budgetDuration,
      budgetResetAt: key.budgetResetAt?.getTime() ?? null,
      createdAt: key.createdAt.getTime(),
      spend: key.spend,
      budgetSpend: key.budgetSpend,
    };
    const periodEnd = budgetPeriodEnd(budgetKey, this.clock.now());
    const budgetSpend = persistedBudgetSpend(budgetKey, periodEnd);
    return {
      key_id: key.id,
      project: key.project,
      spend: key.spend,
      budget: {
        max_budget: key.maxBudget,
        budget_duration: key.budgetDuration,
        spend: budgetSpend,
        remaining: key.maxBudget === null ? null : Math.max(0, key.maxBudget - budgetSpend),
        reset_at: periodEnd === null ? null : new Date(periodEnd).toISOString(),
      },
      ...breakdown(rows, from, to),
    };
  }

  async forProject(project: string, from?: string, to?: string): Promise<ProjectSpendReport> {
    await this.catchUp();
    const rows = await this.rows('s.project = $1', [project, from ?? null, to ?? null]);
    const byKey = new Map<string, SpendTotals & { key_id: string | null; key_hint: string | null; key_alias: string | null }>();
    const byRepository = new Map<string, SpendTotals & { repository: string | null }>();
    const byPerson = new Map<string, SpendTotals & { user_id: string | null }>();
    for (const row of rows) {
      add(byKey, row.key_id ?? 'master', { key_id: row.key_id, key_hint: row.key_hint, key_alias: row.key_alias }, row);
      add(byRepository, row.repository ?? '', { repository: row.repository }, row);
      add(byPerson, row.user_id === null ? '' : `:${row.user_id}`, { user_id: row.user_id }, row);
    }
    const callsByDay: { day: string; calls: number; errors: number }[] = await this.dataSource.query(CALLS_BY_DAY, [project, from ?? null, to ?? null]);
    return {
      project,
      ...breakdown(rows, from, to),
      by_key: [...byKey.values()],
      by_repository: [...byRepository.values()],
      by_person: [...byPerson.values()],
      calls_by_day: callsByDay,
    };
  }

  // This replica's last second of spend belongs in the report; a failing flush keeps it for later.
  private async catchUp(): Promise<void> {
    await this.recorder.flush().catch(() => undefined);
  }

  private rows(where: string, parameters: unknown[]): Promise<SpendRow[]> {
    return this.dataSource.query(SPEND_ROWS(where), parameters);
  }
}

function breakdown(rows: SpendRow[], from?: string, to?: string): SpendBreakdown {
  const totals = zero();
  const byAlias = new Map<string, SpendTotals & { alias: string }>();
  const byDeployment = new Map<string, SpendTotals & { deployment_id: string; provider: string }>();
  const byDay = new Map<string, SpendTotals & { day: string }>();
  for (const row of rows) {
    addTo(totals, row);
    add(byAlias, row.alias, { alias: row.alias }, row);
    add(byDeployment, row.deployment_id, { deployment_id: row.deployment_id, provider: row.provider }, row);
    add(byDay, row.day, { day: row.day }, row);
  }
  return { from: from ?? null, to: to ?? null, totals, by_alias: [...byAlias.values()], by_deployment: [...byDeployment.values()], by_day: [...byDay.values()] };
}

function add<T extends object>(into: Map<string, SpendTotals & T>, id: string, fields: T, row: SpendRow): void {
  let totals = into.get(id);
  if (!totals) {
    totals = { ...fields, ...zero() };
    into.set(id, totals);
  }
  addTo(totals, row);
}

function addTo(totals: SpendTotals, row: SpendRow): void {
  totals.requests += Number(row.requests);
  totals.prompt_tokens += Number(row.prompt_tokens);
  totals.completion_tokens += Number(row.completion_tokens);
  totals.cost_usd = addUsd(totals.cost_usd, row.cost_usd);
  totals.estimated_requests += Number(row.estimated_requests);
  totals.estimated_cost_usd = addUsd(totals.estimated_cost_usd, row.estimated_cost_usd);
  totals.cache_hit_requests += Number(row.cache_hit_requests);
}

function zero(): SpendTotals {
  return { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, estimated_requests: 0, estimated_cost_usd: 0, cache_hit_requests: 0 };
}
