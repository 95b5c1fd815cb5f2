import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { excerpt } from '@arbor/platform';
import { ProviderError } from '@arbor/provider-adapters';
import { GatewayClock } from '../gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import type { GatewayCaller } from '../keys/key-verifier';
import { calendarPeriodEnd } from '../limits/budget-period';
import { GatewayRedis } from '../limits/gateway-redis';
import { budgetExceeded, budgetHeldInFlight } from '../limits/limit-refusals';
import { usdNumber, usdUnits } from '../pricing/usd';
import { SpendRecorder } from '../spend/spend-recorder';
import { BudgetAlerts, crossesThreshold } from './budget-alerts';
import { type AppliedBudget, type BudgetHold, BudgetCounters, BudgetsUnavailable } from './budget-counters';
import { BudgetLimits } from './budget-limits';
import type { WorkspaceBudgetSettings } from './budget-settings';

/** The header naming the caller's own customer when the body does not (`user`). */
export const END_USER_HEADER = 'x-arbor-end-user';
/** The header carrying a call's tags (comma-separated) when its body's metadata.tags does not. */
export const TAGS_HEADER = 'x-arbor-tags';

/** A call let through by every budget level that applies to it; settle it once with what it cost. */
export interface BudgetAdmission {
  settle(costUsd: number): void;
  /** The call was refused after all (by the key's own limits): what it held is free again, nothing is counted. */
  release(): void;
}

const WORKSPACE = 'workspace';
/** A key's budget on one alias (LiteLLM's model_max_budget); its subject is `<key id>:<alias>`. */
const KEY_MODEL = 'key-model';
const PROJECT = 'project';
/** A person's budget in a project (LiteLLM's team member budget); its subject is `<project slug>:<user id>`. */
const PERSON = 'person';
const END_USER = 'end-user';
const TAG = 'tag';
/** A tag's spend per UTC day, for /spend/tags (report only). */
export const TAG_DAILY = 'tag:daily';
const MAX_TAGS = 32;
const NONE: readonly AppliedBudget[] = Object.freeze([]);
// Subjects whose persisted spend this replica has read; the least recently used is read again when it comes back.
const SEEDED_SUBJECTS = 100_000;

const PERSISTED = `select spend::text as spend from budget_spend where level = $1 and subject = $2 and period_end = $3::timestamptz`;

/**
 * The budget levels beside the key's own max_budget, checked for every call on every route
 * (CallAccounting admits them all) and added to when the call settles: the workspace
 * (`litellm_settings.max_budget` with `budget_duration`), the key's project (LiteLLM's team,
 * `/team/update`), the key's budget per alias (`model_max_budget`) and the caller's end user
 * (LiteLLM's customer, `/customer/*`: `user` in the body or x-arbor-end-user). A level over its
 * budget refuses the call before any upstream with 400 budget_exceeded naming the level; a blocked
 * end user is refused with 403. Periods lie on calendar boundaries in the workspace time zone. The
 * key's own max_budget stays with its other limits (limits/KeyLimiter). A call no level applies to
 * is never admitted here: `apply` is a few checks, no allocation.
 */
@Injectable()
export class Budgets implements OnApplicationBootstrap {
  private readonly workspace: WorkspaceBudgetSettings | undefined;
  private readonly timeZone: string;
  private readonly counters: BudgetCounters;
  /** The workspace budget of the current period, made again only when the period ends. */
  private workspacePeriod: readonly AppliedBudget[] = NONE;
  /** Budgets (level, subject, period) whose persisted spend is read, or being read. */
  private readonly seeded = new LRUCache<string, Promise<void>>({ max: SEEDED_SUBJECTS });
  /** Names this replica's holds in Redis, with the count of calls admitted. */
  private readonly replica = randomUUID();
  private holds = 0;

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    private readonly clock: GatewayClock,
    redis: GatewayRedis,
    private readonly spend: SpendRecorder,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly limits: BudgetLimits,
    private readonly alerts: BudgetAlerts,
  ) {
    this.workspace = settings.litellm.budgets?.workspace;
    this.timeZone = settings.litellm.budgets?.timeZone ?? 'UTC';
    this.counters = new BudgetCounters(redis, settings.budgetsWithoutRedis ?? 'closed');
  }

  // What earlier runs (and other replicas) spent in the current period, before the first call.
  async onApplicationBootstrap(): Promise<void> {
    const [namespace] = (await this.dataSource.query('select id::text as id from budget_namespace limit 1')) as { id: string }[];
    if (namespace) this.counters.useNamespace(namespace.id);
    if (!this.workspace) return;
    const [budget] = this.workspaceBudgets(this.workspace, this.clock.now());
    if (budget) await this.seed(budget);
  }

  /** Whether any level may apply to the call: the few checks a call pays when none does. */
  apply(caller: GatewayCaller, body: Record<string, unknown> | undefined, headers: IncomingHttpHeaders | undefined): boolean {
    if (this.workspace !== undefined || this.limits.any(END_USER) || hasTags(body, headers)) return true;
    if (caller.kind !== 'virtual') return false;
    const key = caller.key;
    return (
      key.modelBudgets !== null ||
      (this.limits.any(PROJECT) && this.limits.of(PROJECT, key.project) !== undefined) ||
      (key.userId !== null && this.limits.any(PERSON) && this.limits.of(PERSON, personSubject(key.project, key.userId)) !== undefined)
    );
  }

  /**
   * Checks every level that applies to the call; throws the refusal of the first one over its
   * budget. `reserve` (USD): the call's worst-case cost, held on every level until it settles, so
   * that a level is refused once what it spent and what its calls in flight hold reach its budget.
   */
  async admit(caller: GatewayCaller, alias: string | undefined, body?: Record<string, unknown>, headers?: IncomingHttpHeaders, reserve = 0): Promise<BudgetAdmission | undefined> {
    const now = this.clock.now();
    const applied = this.applying(caller, alias, body, headers, now);
    if (applied.length === 0) return undefined;
    for (const budget of applied) if (!budget.reportOnly) await this.seed(budget);
    const hold: BudgetHold = { slot: `${this.replica}:${++this.holds}`, amount: Number.isFinite(reserve) && reserve > 0 ? usdUnits(reserve) : 0n };
    const standing = await this.counters.standing(applied, hold).catch((error: unknown) => {
      if (error instanceof BudgetsUnavailable) throw budgetsUnavailable();
      throw error;
    });
    applied.forEach((budget, index) => {
      if (budget.maxBudget === null) return;
      const spent = standing.spent[index] ?? 0n;
      const held = standing.held[index] ?? 0n;
      if (spent < budget.maxBudget && spent + held < budget.maxBudget) return;
      this.counters.release(applied, hold);
      throw spent >= budget.maxBudget
        ? budgetExceeded(usdNumber(spent), usdNumber(budget.maxBudget), describe(budget, alias))
        : budgetHeldInFlight(usdNumber(spent), usdNumber(budget.maxBudget), usdNumber(held), describe(budget, alias));
    });
    let settled = false;
    return {
      settle: (costUsd) => {
        if (settled) return;
        settled = true;
        const cost = Number.isFinite(costUsd) && costUsd > 0 ? usdUnits(costUsd) : 0n;
        this.counters.add(applied, cost);
        this.counters.release(applied, hold);
        if (cost > 0n) this.alertCrossings(applied, standing.spent, cost, alias);
        for (const budget of applied) this.spend.recordBudgetSpend({ level: budget.level, subject: budget.subject, periodEnd: budget.periodEnd, costUsd: cost, calls: 1 });
      },
      release: () => {
        if (settled) return;
        settled = true;
        this.counters.release(applied, hold);
      },
    };
  }

  /** 50, 80 and 100 % of each budget the call moved past, from what it had spent when the call was admitted. */
  private alertCrossings(applied: readonly AppliedBudget[], spent: readonly bigint[], cost: bigint, alias: string | undefined): void {
    applied.forEach((budget, index) => {
      if (budget.maxBudget === null || budget.reportOnly) return;
      const before = spent[index] ?? 0n;
      const limit = usdNumber(budget.maxBudget);
      if (!crossesThreshold(limit, usdNumber(before), usdNumber(before + cost))) return;
      const project = budget.level === PROJECT ? budget.subject : undefined;
      this.alerts.spent(
        { level: budget.level, subject: budget.subject, description: describe(budget, alias), maxBudget: limit, periodEnd: budget.periodEnd, project },
        usdNumber(before),
        usdNumber(before + cost),
      );
    });
  }

  /** What a subject of a level has spent in its current period and when that ends (null: lifetime), for /customer/info and /team/info. */
  async spentNow(level: 'project' | 'person' | 'end-user' | 'tag', subject: string, budgetDuration: string | null): Promise<{ spend: number; periodEnd: number | null }> {
    const budget = this.budget(level, subject, null, budgetDuration, this.clock.now());
    await this.seed(budget);
    const [spent] = await this.counters.spent([budget]);
    return { spend: usdNumber(spent ?? 0n), periodEnd: budget.periodEnd };
  }

  /** The levels of this call, in the order they are checked (and named when one refuses). */
  private applying(
    caller: GatewayCaller,
    alias: string | undefined,
    body: Record<string, unknown> | undefined,
    headers: IncomingHttpHeaders | undefined,
    now: number,
  ): readonly AppliedBudget[] {
    const workspace = this.workspace ? this.workspaceBudgets(this.workspace, now) : NONE;
    const more: AppliedBudget[] = [];
    if (caller.kind === 'virtual') {
      const project = this.limits.of(PROJECT, caller.key.project);
      if (project) more.push(this.budget(PROJECT, caller.key.project, project.maxBudget, project.budgetDuration, now));
      const person = caller.key.userId !== null ? this.limits.of(PERSON, personSubject(caller.key.project, caller.key.userId)) : undefined;
      if (person) more.push(this.budget(PERSON, personSubject(caller.key.project, caller.key.userId as string), person.maxBudget, person.budgetDuration, now));
      const onAlias = alias !== undefined ? caller.key.modelBudgets?.get(alias) : undefined;
      if (onAlias) more.push(this.budget(KEY_MODEL, `${caller.key.id}:${alias}`, onAlias.maxBudget, onAlias.budgetDuration, now));
    }
    const endUser = this.limits.any(END_USER) ? endUserOf(body, headers) : undefined;
    const customer = endUser !== undefined ? this.limits.of(END_USER, endUser) : undefined;
    if (endUser !== undefined && customer) {
      if (customer.blocked) throw endUserBlocked(endUser);
      more.push(this.budget(END_USER, endUser, customer.maxBudget, customer.budgetDuration, now));
    }
    const tags = tagsOf(body, headers);
    if (tags.length > 0) {
      const day = calendarPeriodEnd('1d', now, 'UTC');
      for (const tag of tags) {
        more.push({ level: TAG_DAILY, subject: tag, maxBudget: null, periodEnd: day, reportOnly: true });
        const budget = this.limits.of(TAG, tag);
        if (budget) more.push(this.budget(TAG, tag, budget.maxBudget, budget.budgetDuration, now));
      }
    }
    return more.length === 0 ? workspace : [...workspace, ...more];
  }

  private workspaceBudgets(workspace: WorkspaceBudgetSettings, now: number): readonly AppliedBudget[] {
    const current = this.workspacePeriod[0];
    if (current && (current.periodEnd === null || now < current.periodEnd)) return this.workspacePeriod;
    this.workspacePeriod = [this.budget(WORKSPACE, '', workspace.maxBudget, workspace.budgetDuration, now)];
    return this.workspacePeriod;
  }

  private budget(level: string, subject: string, maxBudget: number | null, duration: string | null, now: number): AppliedBudget {
    return { level, subject, maxBudget: maxBudget === null ? null : usdUnits(maxBudget), periodEnd: duration === null ? null : calendarPeriodEnd(duration, now, this.timeZone) };
  }

  /** Once per budget and period in this process: what the database holds for it (one read, on first sight). */
  private seed(budget: AppliedBudget): Promise<void> {
    const id = `${budget.level}\0${budget.subject}\0${budget.periodEnd ?? 'lifetime'}`;
    let seeding = this.seeded.get(id);
    if (!seeding) {
      const period = budget.periodEnd === null ? 'infinity' : new Date(budget.periodEnd).toISOString();
      seeding = this.dataSource.query(PERSISTED, [budget.level, budget.subject, period]).then((rows: { spend: string }[]) => {
        if (rows[0]) this.counters.seed(budget, usdUnits(rows[0].spend));
      });
      // A failed read is tried again by the next call rather than remembered.
      seeding.catch(() => this.seeded.delete(id));
      this.seeded.set(id, seeding);
    }
    return seeding;
  }
}

/** How a refusal names the level. */
function describe(budget: AppliedBudget, alias: string | undefined): string {
  if (budget.level === WORKSPACE) return 'the workspace budget, litellm_settings.max_budget';
  if (budget.level === KEY_MODEL) return `the key's model_max_budget for "${excerpt(alias ?? '')}"`;
  if (budget.level === PROJECT) return `the budget of project "${budget.subject}", LiteLLM's team`;
  if (budget.level === PERSON) {
    const [project, ...person] = budget.subject.split(':');
    return `the budget of user "${excerpt(person.join(':'))}" in project "${project}", LiteLLM's team member budget`;
  }
  if (budget.level === TAG) return `the budget of tag "${excerpt(budget.subject)}"`;
  return `the budget of end user "${excerpt(budget.subject)}"`;
}

/** The subject of a person's budget in a project: slugs have no colon, so the first one parts them. */
export function personSubject(project: string, userId: string): string {
  return `${project}:${userId}`;
}

/** The caller's own customer: the x-arbor-end-user header, else `user` of the request as parsed. */
export function endUserOf(body: Record<string, unknown> | undefined, headers: IncomingHttpHeaders | undefined): string | undefined {
  const header = headers?.[END_USER_HEADER];
  if (typeof header === 'string' && header !== '') return header;
  const user = body?.['user'];
  return typeof user === 'string' && user !== '' ? user : undefined;
}

// Budgets fail closed while the Redis their replicas share is gone: what was spent elsewhere is unknown.
const budgetsUnavailable = () =>
  new ProviderError(
    503,
    'service_unavailable',
    'Budgets cannot be checked: the Redis the replicas share is unreachable (AIGW_BUDGETS_WITHOUT_REDIS=closed). Try again shortly.',
    'budget_check_unavailable',
  );

const endUserBlocked = (endUser: string) =>
  new ProviderError(403, 'permission_error', `The end user "${excerpt(endUser)}" is blocked on this gateway (/customer/block).`, 'end_user_blocked');

/** Whether the call names tags at all (read only when it does). */
function hasTags(body: Record<string, unknown> | undefined, headers: IncomingHttpHeaders | undefined): boolean {
  if (headers?.[TAGS_HEADER] !== undefined) return true;
  const metadata = body?.['metadata'];
  return typeof metadata === 'object' && metadata !== null && 'tags' in metadata;
}

const NO_TAGS: readonly string[] = Object.freeze([]);

/** The call's tags, LiteLLM's way: `metadata.tags` of the request as parsed, else the x-arbor-tags header; distinct, at most 32. */
export function tagsOf(body: Record<string, unknown> | undefined, headers: IncomingHttpHeaders | undefined): readonly string[] {
  if (!hasTags(body, headers)) return NO_TAGS;
  const metadata = body?.['metadata'] as Record<string, unknown> | undefined;
  const listed = metadata?.['tags'];
  const header = headers?.[TAGS_HEADER];
  const named = Array.isArray(listed) ? listed : typeof header === 'string' ? header.split(',') : [];
  const tags = new Set<string>();
  for (const tag of named) {
    if (typeof tag !== 'string') continue;
    const trimmed = tag.trim();
    if (trimmed !== '' && trimmed.length <= 256) tags.add(trimmed);
    if (tags.size === MAX_TAGS) break;
  }
  return [...tags];
}
