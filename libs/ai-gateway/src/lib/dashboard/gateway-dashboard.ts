import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DashboardStatus, DashboardTile, DashboardViewer } from '@arbor/contract';
import { GatewayClock } from '../gateway-clock';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { budgetPeriodEnd, calendarPeriodEnd, persistedBudgetSpend } from '../limits/budget-period';
import { addUsd, usdText } from '../pricing/usd';

/** A key counts as near its budget from this share of it on. */
const NEAR_BUDGET = 0.8;
const TOP_ALIASES = 3;
const DAY_MS = 86_400_000;

// `$1` null: every project (a workspace-wide viewer); else the slugs the person may see.
const SPEND = `
  select project, coalesce(sum(cost_usd) filter (where day = $2::date), 0)::float8 as today, sum(cost_usd)::float8 as month
    from spend_project_daily
   where day >= $3::date and ($1::text[] is null or project = any($1))
   group by project`;
const TOP_ALIAS_SPEND = `
  select alias, sum(cost_usd)::float8 as cost
    from spend_project_daily
   where day >= $2::date and ($1::text[] is null or project = any($1))
   group by alias having sum(cost_usd) > 0 order by cost desc, alias limit ${TOP_ALIASES}`;
const CALLS = `
  select project, sum(calls)::int as calls, sum(errors)::int as errors
    from calls_hourly
   where hour > $2::timestamptz and ($1::text[] is null or project = any($1))
   group by project`;
// Only keys whose persisted spend could reach the mark (persistedBudgetSpend returns one of these two or 0); their period is checked after.
const BUDGETED_KEYS = `
  select project, max_budget, budget_duration, budget_reset_at, created_at, spend::float8 as spend, budget_spend::float8 as budget_spend
    from virtual_keys
   where max_budget is not null and not blocked and project_deleted_at is null and ($1::text[] is null or project = any($1))
     and (case when budget_duration is null then spend else budget_spend end) >= max_budget * ${NEAR_BUDGET}`;

// Project and person budgets (budget_limits) whose persisted spend in some period reached the mark; the period is checked after.
const LEVEL_BUDGETS = `
  select l.level, l.subject, l.max_budget, l.budget_duration, s.spend::float8 as spend,
         case when s.period_end = 'infinity' then null else (extract(epoch from s.period_end) * 1000)::float8 end as period_end
    from budget_limits l join budget_spend s on s.level = l.level and s.subject = l.subject
   where l.deleted_at is null and l.max_budget is not null and l.level in ('project', 'person')
     and ($1::text[] is null or split_part(l.subject, ':', 1) = any($1))
     and s.spend >= l.max_budget * ${NEAR_BUDGET}`;

// Calls a guardrail refused (from the call log; none when general_settings.disable_spend_logs).
const GUARDRAIL_REFUSALS = `
  select project, count(*)::int as refused
    from call_records
   where error_code = 'guardrail_violation' and started_at > $2::timestamptz and project is not null and ($1::text[] is null or project = any($1))
   group by project`;

interface LevelBudgetRow {
  level: 'project' | 'person';
  subject: string;
  max_budget: number;
  budget_duration: string | null;
  spend: number;
  period_end: number | null;
}

interface BudgetedKeyRow {
  project: string;
  max_budget: number;
  budget_duration: string | null;
  budget_reset_at: Date | null;
  created_at: Date;
  spend: number;
  budget_spend: number;
}

/**
 * The AI gateway's card on the suite dashboard, for one person: spend today and this month, calls
 * and errors in the last 24 h, the top aliases by spend, the keys near or over their budget and
 * the project and person budgets (LiteLLM's team and team member budgets) near or over theirs, over
 * the projects the person may see. Read from the rollups (spend_project_daily, calls_hourly), the
 * keys' persisted budget spend, budget_spend and the guardrail refusals of the call log (by its
 * error-code index): six small queries, never a scan of request logs.
 */
@Injectable()
export class GatewayDashboard {
  private readonly timeZone: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: GatewayClock,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.timeZone = settings.litellm.budgets?.timeZone ?? 'UTC';
  }

  async summary(viewer: DashboardViewer): Promise<{ status: DashboardStatus; tiles: DashboardTile[] }> {
    if (viewer.permissions.source === 'unavailable') return { status: 'unknown', tiles: [] };
    const visible = viewer.visibleProjects();
    const projects = visible === 'all' ? null : visible;
    if (projects !== null && projects.length === 0) return { status: 'ok', tiles: [] };
    const now = this.clock.now();
    const today = new Date(now - (now % DAY_MS)).toISOString().slice(0, 10);
    const monthStart = `${today.slice(0, 8)}01`;
    const [spend, aliases, calls, keys, levels, refusals] = await Promise.all([
      this.dataSource.query(SPEND, [projects, today, monthStart]) as Promise<{ project: string; today: number; month: number }[]>,
      this.dataSource.query(TOP_ALIAS_SPEND, [projects, monthStart]) as Promise<{ alias: string; cost: number }[]>,
      this.dataSource.query(CALLS, [projects, new Date(now - DAY_MS).toISOString()]) as Promise<{ project: string; calls: number; errors: number }[]>,
      this.dataSource.query(BUDGETED_KEYS, [projects]) as Promise<BudgetedKeyRow[]>,
      this.dataSource.query(LEVEL_BUDGETS, [projects]) as Promise<LevelBudgetRow[]>,
      this.dataSource.query(GUARDRAIL_REFUSALS, [projects, new Date(now - DAY_MS).toISOString()]) as Promise<{ project: string; refused: number }[]>,
    ]);
    const refusedOf = new Map(refusals.map((row) => [row.project, row.refused]));
    // A project's or a person's budget counts when its current period's spend is near or over it.
    const levelsNear = new Map<string, number>();
    for (const row of levels) {
      const current = row.budget_duration === null ? null : calendarPeriodEnd(row.budget_duration, now, this.timeZone);
      if (row.period_end !== current) continue;
      const project = row.subject.split(':')[0] as string;
      levelsNear.set(project, (levelsNear.get(project) ?? 0) + 1);
    }
    const nearBudget = new Map<string, number>();
    for (const key of keys) {
      const budgetKey = {
        budgetDuration: key.budget_duration,
        budgetResetAt: key.budget_reset_at?.getTime() ?? null,
        createdAt: key.created_at.getTime(),
        spend: key.spend,
        budgetSpend: key.budget_spend,
      };
      const spent = persistedBudgetSpend(budgetKey, budgetPeriodEnd(budgetKey, now));
      if (spent >= key.max_budget * NEAR_BUDGET) nearBudget.set(key.project, (nearBudget.get(key.project) ?? 0) + 1);
    }
    const shown = [...new Set([...(projects ?? []), ...spend.map((row) => row.project), ...calls.map((row) => row.project), ...refusals.map((row) => row.project)])].sort();
    const spendOf = new Map(spend.map((row) => [row.project, row]));
    const callsOf = new Map(calls.map((row) => [row.project, row]));
    const tile = (label: string, unit: string | null, value: (project: string) => number): DashboardTile => {
      const breakdown = shown.map((project) => ({ project, value: value(project) }));
      // Exact (USD as the decimals it has, sub-cent spend included; the dashboard formats it): floats would add noise.
      return { label, value: addUsd(...breakdown.map((row) => row.value)), unit, breakdown };
    };
    const totalCalls = calls.reduce((sum, row) => sum + row.calls, 0);
    const totalErrors = calls.reduce((sum, row) => sum + row.errors, 0);
    return {
      // Many failed calls is worth a look: degraded from one in ten.
      status: totalCalls > 0 && totalErrors / totalCalls >= 0.1 ? 'degraded' : 'ok',
      tiles: [
        tile('Spend today', 'USD', (project) => spendOf.get(project)?.today ?? 0),
        tile('Spend this month', 'USD', (project) => spendOf.get(project)?.month ?? 0),
        tile('Calls, last 24 h', 'requests', (project) => callsOf.get(project)?.calls ?? 0),
        tile('Errors, last 24 h', 'requests', (project) => callsOf.get(project)?.errors ?? 0),
        {
          label: 'Top aliases this month',
          value: aliases.length === 0 ? 'none yet' : aliases.map((row) => `${row.alias} (${usdText(row.cost)})`).join(', '),
          unit: null,
        },
        tile('Keys near or over budget', null, (project) => nearBudget.get(project) ?? 0),
        tile('Project and person budgets near or over', null, (project) => levelsNear.get(project) ?? 0),
        tile('Guardrail refusals, last 24 h', 'requests', (project) => refusedOf.get(project) ?? 0),
      ],
    };
  }
}
