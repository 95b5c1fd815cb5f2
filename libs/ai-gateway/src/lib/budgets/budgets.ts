import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GatewayClock } from '../gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import { calendarPeriodEnd } from '../limits/budget-period';
import { GatewayRedis } from '../limits/gateway-redis';
import { budgetExceeded } from '../limits/limit-refusals';
import { usdNumber, usdUnits } from '../pricing/usd';
import { SpendRecorder } from '../spend/spend-recorder';
import { type AppliedBudget, BudgetCounters } from './budget-counters';
import type { WorkspaceBudgetSettings } from './budget-settings';

/** A call let through by every budget level that applies to it; settle it once with what it cost. */
export interface BudgetAdmission {
  settle(costUsd: number): void;
}

const WORKSPACE = 'workspace';

const PERSISTED = `select spend::text as spend from budget_spend where level = $1 and subject = $2 and period_end = $3::timestamptz`;

/**
 * The budget levels above and beside the key — today the workspace (`litellm_settings.max_budget`
 * with `budget_duration`, in `litellm_settings.timezone`) — checked for every call on every route
 * (CallAccounting admits them all), and the call's cost added to each when it settles. A level
 * that is over its budget refuses the call before any upstream, with 400 budget_exceeded naming
 * the level. The key's own max_budget stays with its other limits (limits/KeyLimiter). Off, when
 * the config has no level: `admit` is then never called and costs the call nothing.
 */
@Injectable()
export class Budgets implements OnApplicationBootstrap {
  /** Some level applies to calls: CallAccounting asks only then. */
  readonly on: boolean;
  private readonly workspace: WorkspaceBudgetSettings | undefined;
  private readonly counters: BudgetCounters;
  /** The workspace budget of the current period, made again only when the period ends. */
  private workspacePeriod: readonly AppliedBudget[] = [];

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    private readonly clock: GatewayClock,
    redis: GatewayRedis,
    private readonly spend: SpendRecorder,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.workspace = settings.litellm.budgets?.workspace;
    this.on = this.workspace !== undefined;
    this.counters = new BudgetCounters(redis);
  }

  // What earlier runs (and other replicas) spent in the current period, before the first call.
  async onApplicationBootstrap(): Promise<void> {
    if (!this.workspace) return;
    const [budget] = this.workspaceBudgets(this.workspace, this.clock.now());
    if (!budget) return;
    const rows: { spend: string }[] = await this.dataSource.query(PERSISTED, [budget.level, budget.subject, periodText(budget.periodEnd)]);
    if (rows[0]) this.counters.seed(budget, usdUnits(rows[0].spend));
  }

  /** Checks every level that applies to the call; throws the refusal of the first one over its budget. */
  async admit(_caller: GatewayCaller): Promise<BudgetAdmission | undefined> {
    if (!this.workspace) return undefined;
    const applied = this.workspaceBudgets(this.workspace, this.clock.now());
    const spent = await this.counters.spent(applied);
    applied.forEach((budget, index) => {
      const used = spent[index] ?? 0n;
      if (used >= budget.maxBudget) throw budgetExceeded(usdNumber(used), usdNumber(budget.maxBudget), describe(budget));
    });
    let settled = false;
    return {
      settle: (costUsd) => {
        if (settled) return;
        settled = true;
        const cost = Number.isFinite(costUsd) && costUsd > 0 ? usdUnits(costUsd) : 0n;
        if (cost === 0n) return;
        this.counters.add(applied, cost);
        for (const budget of applied) this.spend.recordBudgetSpend({ level: budget.level, subject: budget.subject, periodEnd: budget.periodEnd, costUsd: cost });
      },
    };
  }

  private workspaceBudgets(workspace: WorkspaceBudgetSettings, now: number): readonly AppliedBudget[] {
    const current = this.workspacePeriod[0];
    if (current && (current.periodEnd === null || now < current.periodEnd)) return this.workspacePeriod;
    const periodEnd = workspace.budgetDuration === null ? null : calendarPeriodEnd(workspace.budgetDuration, now, workspace.timeZone);
    this.workspacePeriod = [{ level: WORKSPACE, subject: '', maxBudget: usdUnits(workspace.maxBudget), periodEnd }];
    return this.workspacePeriod;
  }
}

/** How a refusal names the level. */
function describe(budget: AppliedBudget): string {
  if (budget.level === WORKSPACE) return 'the workspace budget, litellm_settings.max_budget';
  return `the ${budget.level} budget of "${budget.subject}"`;
}

function periodText(periodEnd: number | null): string {
  return periodEnd === null ? 'infinity' : new Date(periodEnd).toISOString();
}
