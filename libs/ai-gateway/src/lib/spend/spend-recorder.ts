import { errorFields } from '@arbor/observability';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { GatewayClock } from '../gateway-clock';
import { type UsdUnits, usdDecimal, usdUnits } from '../pricing/usd';

/** One call's spend, as the chat route knows it when the call ends. */
export interface SpendEntry {
  /** The virtual key's id; null for the master key. */
  keyId: string | null;
  /** The key's project; null for the master key. */
  project: string | null;
  /** The control plane's id of the project, when known. */
  projectId?: string | null;
  alias: string;
  deploymentId: string;
  provider: string;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** The tokens were counted by the gateway (see usage-estimate.ts), not reported by the upstream. */
  estimated?: boolean;
  /** Answered from the response cache (no upstream call, no cost). */
  cacheHit?: boolean;
}

interface DailyTotals {
  day: string;
  keyId: string | null;
  project: string | null;
  projectId: string | null;
  alias: string;
  deploymentId: string;
  provider: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** Money in exact picodollars (usd.ts), written to numeric columns. */
  costUsd: UsdUnits;
  /** Of requests and costUsd, those with estimated usage. */
  estimatedRequests: number;
  estimatedCostUsd: UsdUnits;
  /** Of requests, those answered from the response cache. */
  cacheHitRequests: number;
}

interface KeyTotals {
  costUsd: UsdUnits;
  /** The budget period the latest spend fell in (null: lifetime budget) and the spend in it. */
  periodEnd: number | null;
  periodCostUsd: UsdUnits;
}

/** Spend of one budget level's subject in one period (budgets/), added up until the flush. */
export interface BudgetSpendEntry {
  /** `workspace`, …: the level the budget belongs to. */
  level: string;
  /** What the level counts: '' for the workspace. */
  subject: string;
  /** End of the period; null for a lifetime budget. */
  periodEnd: number | null;
  costUsd: UsdUnits;
  /** Calls the cost is of. */
  calls: number;
}

/**
 * A call's content (its messages and answer) as a stage keeps it, when the config turns that on
 * (call-content/): read once, when the record is written, so that nothing of it is serialised on
 * the request path.
 */
export interface CallRecordContent {
  /** The answer is still on its way to the client: the record waits for it (a few flushes at most). */
  readonly pending: boolean;
  /** The JSON document to store in call_records.content, or null for none. */
  read(): Record<string, unknown> | null;
}

/** One call, as /spend/logs lists it: metadata, and content only when general_settings.store_prompts_in_spend_logs keeps it. */
export interface CallRecord {
  /** x-arbor-call-id when the route made one. */
  id?: string | undefined;
  startedAt: number;
  keyId: string | null;
  project: string | null;
  endUser: string | null;
  tags: readonly string[];
  alias: string;
  deploymentId: string | null;
  provider: string | null;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  status: number;
  latencyMs: number;
  cacheHit: boolean;
  /** A failed or refused call's error code (guardrail_violation, budget_exceeded…); null when answered. */
  errorCode: string | null;
  retries: number;
  fallbacks: number;
  /** The call's messages and answer, when kept (absent on every call when content is off). */
  content?: CallRecordContent | undefined;
  /** Flushes this record waited for its pending content. */
  contentWaits?: number;
}

interface HourlyCalls {
  hour: string;
  project: string;
  projectId: string | null;
  calls: number;
  errors: number;
}

const FLUSH_INTERVAL_MS = 1_000;
// A record whose answer is still on its way waits at most this many flushes, then goes without it.
const MAX_CONTENT_WAITS = 3;
/**
 * One replica's flush at a time, taken without waiting (pg_try_advisory_xact_lock): replicas
 * adding to the same rollup rows would otherwise queue on each other's row locks. A flush that
 * finds another in progress steps back, holding nothing, and tries again a few milliseconds later.
 */
const SPEND_FLUSH_LOCK_ID = 7_210_431_551;
const FLUSH_TURN_TRIES = 200;
const HOUR_MS = 3_600_000;

// A row's slug is its project's current one (its keys'): a rename synced while the row waited here moved the rest already.
const CURRENT_SLUG = `coalesce((select k.project from virtual_keys k where k.project_id = d.project_id limit 1), d.project)`;

// Grouped again after the slug lookup: two slugs of one project in one flush become one row.
const UPSERT_DAILY = `
  insert into spend_daily as s (day, key_id, project, alias, deployment_id, provider, requests, prompt_tokens, completion_tokens, cost_usd,
                                estimated_requests, estimated_cost_usd, project_id, cache_hit_requests)
  select day, key_id, slug, alias, deployment_id, max(provider), sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost_usd),
         sum(estimated_requests), sum(estimated_cost_usd), (array_agg(project_id))[1], sum(cache_hit_requests)
    from (select d.*, ${CURRENT_SLUG} as slug
            from unnest($1::date[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::numeric[],
                        $11::bigint[], $12::numeric[], $13::uuid[], $14::bigint[])
              as d(day, key_id, project, alias, deployment_id, provider, requests, prompt_tokens, completion_tokens, cost_usd, estimated_requests,
                   estimated_cost_usd, project_id, cache_hit_requests)) rows
   group by day, key_id, slug, alias, deployment_id
  on conflict (day, key_id, project, alias, deployment_id) do update set
    provider = excluded.provider,
    project_id = coalesce(excluded.project_id, s.project_id),
    requests = s.requests + excluded.requests,
    prompt_tokens = s.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = s.completion_tokens + excluded.completion_tokens,
    cost_usd = s.cost_usd + excluded.cost_usd,
    estimated_requests = s.estimated_requests + excluded.estimated_requests,
    estimated_cost_usd = s.estimated_cost_usd + excluded.estimated_cost_usd,
    cache_hit_requests = s.cache_hit_requests + excluded.cache_hit_requests`;

const UPSERT_HOURLY = `
  insert into calls_hourly as c (hour, project, calls, errors, project_id)
  select hour, slug, sum(calls), sum(errors), (array_agg(project_id))[1]
    from (select d.*, ${CURRENT_SLUG} as slug
            from unnest($1::timestamptz[], $2::text[], $3::bigint[], $4::bigint[], $5::uuid[]) as d(hour, project, calls, errors, project_id)) rows
   group by hour, slug
  on conflict (project, hour) do update set
    calls = c.calls + excluded.calls, errors = c.errors + excluded.errors, project_id = coalesce(excluded.project_id, c.project_id)`;

// A replica flushing an older period late must not move the key's period back.
const ADD_KEY_SPEND = `
  update virtual_keys k set
    spend = k.spend + d.cost,
    budget_spend = case
      when d.period_end is null then k.budget_spend
      when k.budget_reset_at = d.period_end then k.budget_spend + d.period_cost
      when k.budget_reset_at is null or k.budget_reset_at < d.period_end then d.period_cost
      else k.budget_spend end,
    budget_reset_at = greatest(k.budget_reset_at, d.period_end)
  from unnest($1::uuid[], $2::numeric[], $3::timestamptz[], $4::numeric[]) as d(id, cost, period_end, period_cost)
  where k.id = d.id`;

const ADD_BUDGET_SPEND = `
  insert into budget_spend as b (level, subject, period_end, spend, calls)
  select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::numeric[], $5::bigint[])
  on conflict (level, subject, period_end) do update set spend = b.spend + excluded.spend, calls = b.calls + excluded.calls, updated_at = now()`;

const APPEND_CALL_RECORDS = `
  insert into call_records (id, started_at, key_id, project, end_user, tags, alias, deployment_id, provider, prompt_tokens, completion_tokens, cost_usd, status, latency_ms, cache_hit,
                            error_code, retries, fallbacks, content)
  select coalesce(id, gen_random_uuid()), started_at, key_id, project, end_user, coalesce(string_to_array(tags, E'\\x1f'), '{}'), alias, deployment_id, provider,
         prompt_tokens, completion_tokens, cost_usd, status, latency_ms, cache_hit, error_code, retries, fallbacks, content::jsonb
    from unnest($1::uuid[], $2::timestamptz[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[],
                $12::numeric[], $13::integer[], $14::double precision[], $15::boolean[], $16::text[], $17::integer[], $18::integer[], $19::text[])
      as d(id, started_at, key_id, project, end_user, tags, alias, deployment_id, provider, prompt_tokens, completion_tokens, cost_usd, status, latency_ms, cache_hit,
           error_code, retries, fallbacks, content)`;

/**
 * Spend off the request path: record() only adds to in-memory totals; a write-behind flush moves
 * them to PostgreSQL at most once a second and on shutdown, so a crash loses at most that second.
 * A failed flush puts its totals back for the next one.
 */
const DAY_MS = 86_400_000;

@Injectable()
export class SpendRecorder implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('ai-gateway-spend');
  private daily = new Map<string, DailyTotals>();
  private keys = new Map<string, KeyTotals>();
  private hourly = new Map<string, HourlyCalls>();
  private budgets = new Map<string, BudgetSpendEntry>();
  private calls: CallRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The UTC day of the latest call and when it ends: formatting a date per call was half of record(). */
  private day = { name: '', endsAt: 0 };
  /** The same for the hour of calls_hourly. */
  private hour = { name: '', endsAt: 0 };
  private flushing: Promise<void> | undefined;
  private failing = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: GatewayClock,
  ) {}

  /** A call's spend by day, key, alias and deployment (the spend_daily report). */
  record(entry: SpendEntry): void {
    addDaily(this.daily, {
      day: this.today(),
      keyId: entry.keyId,
      project: entry.project,
      projectId: entry.projectId ?? null,
      alias: entry.alias,
      deploymentId: entry.deploymentId,
      provider: entry.provider,
      requests: 1,
      promptTokens: wholeTokens(entry.promptTokens),
      completionTokens: wholeTokens(entry.completionTokens),
      costUsd: usd(entry.costUsd),
      estimatedRequests: entry.estimated ? 1 : 0,
      estimatedCostUsd: entry.estimated ? usd(entry.costUsd) : 0n,
      cacheHitRequests: entry.cacheHit ? 1 : 0,
    });
    this.schedule();
  }

  private today(): string {
    const now = this.clock.now();
    if (now >= this.day.endsAt || now < this.day.endsAt - DAY_MS) {
      const start = now - (now % DAY_MS);
      this.day = { name: new Date(start).toISOString().slice(0, 10), endsAt: start + DAY_MS };
    }
    return this.day.name;
  }

  /** One finished call of a project's key, failed or not, for the per-hour counts (calls_hourly). */
  recordCall(project: string, projectId: string | null, failed: boolean): void {
    const now = this.clock.now();
    if (now >= this.hour.endsAt || now < this.hour.endsAt - HOUR_MS) {
      const start = now - (now % HOUR_MS);
      this.hour = { name: new Date(start).toISOString(), endsAt: start + HOUR_MS };
    }
    addHourly(this.hourly, { hour: this.hour.name, project, projectId, calls: 1, errors: failed ? 1 : 0 });
    this.schedule();
  }

  /** A key's spend for its lifetime and budget columns; KeyAdmission.settle calls it, knowing the period. */
  recordKeySpend(keyId: string, costUsd: number, periodEnd: number | null): void {
    const cost = usd(costUsd);
    if (cost === 0n) return;
    addKeyTotals(this.keys, keyId, { costUsd: cost, periodEnd, periodCostUsd: cost });
    this.schedule();
  }

  /** A call's cost on a budget level above or beside the key (budgets/Budgets calls it, knowing the period). */
  recordBudgetSpend(entry: BudgetSpendEntry): void {
    if (entry.costUsd <= 0n && entry.calls === 0) return;
    addBudgetSpend(this.budgets, entry);
    this.schedule();
  }

  /** One call for /spend/logs (appended, never updated; general_settings.disable_spend_logs turns it off). */
  recordCallRecord(record: CallRecord): void {
    this.calls.push(record);
    this.schedule();
  }

  /**
   * Writes everything recorded so far (`all`: also the records still waiting for their content);
   * one flush at a time. Rejects (keeping the totals) when the database fails.
   */
  async flush(all = false): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.daily.size === 0 && this.keys.size === 0 && this.hourly.size === 0 && this.budgets.size === 0 && this.calls.length === 0) return;
    const daily = this.daily;
    const keys = this.keys;
    const hourly = this.hourly;
    const budgets = this.budgets;
    const calls = this.takeCalls(all);
    this.daily = new Map();
    this.keys = new Map();
    this.hourly = new Map();
    this.budgets = new Map();
    const writing = this.write(daily, keys, hourly, budgets, calls);
    this.flushing = writing.then(
      () => undefined,
      () => undefined,
    );
    try {
      await writing;
      if (this.failing) this.logger.log('spend is written to the database again');
      this.failing = false;
    } catch (error) {
      for (const totals of daily.values()) addDaily(this.daily, totals);
      for (const [keyId, totals] of keys) addKeyTotals(this.keys, keyId, totals);
      for (const calls of hourly.values()) addHourly(this.hourly, calls);
      for (const entry of budgets.values()) addBudgetSpend(this.budgets, entry);
      this.calls = calls.concat(this.calls);
      throw error;
    } finally {
      this.flushing = undefined;
    }
  }

  /**
   * The records to write now; a record whose content is still pending (its call's last bytes are
   * on their way) stays for the next flush, MAX_CONTENT_WAITS at most (none at shutdown).
   */
  private takeCalls(all: boolean): CallRecord[] {
    const calls = this.calls;
    this.calls = [];
    let ready: CallRecord[] | undefined;
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index] as CallRecord;
      const waits = call.contentWaits ?? 0;
      if (!all && call.content?.pending && waits < MAX_CONTENT_WAITS) {
        call.contentWaits = waits + 1;
        this.calls.push(call);
        ready ??= calls.slice(0, index);
      } else ready?.push(call);
    }
    if (this.calls.length > 0) this.schedule();
    return ready ?? calls;
  }

  // While the database is certainly up.
  async beforeApplicationShutdown(): Promise<void> {
    await this.flushOnShutdown();
  }

  // Again after the HTTP server drained: calls that finished meanwhile. Nest runs this hook on this
  // module before the deeper TypeORM module closes the data source; the check covers any other order.
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.flushOnShutdown();
  }

  private async flushOnShutdown(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush(true).catch((error: unknown) => this.logger.error('spend could not be written at shutdown and is lost', { err: errorFields(error) }));
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((error: unknown) => {
        // Once per outage, not once a second.
        if (!this.failing) this.logger.warn('spend could not be written; kept for the next flush', { err: errorFields(error) });
        this.failing = true;
        this.schedule();
      });
    }, FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  private async write(
    daily: Map<string, DailyTotals>,
    keys: Map<string, KeyTotals>,
    hourly: Map<string, HourlyCalls>,
    budgets: Map<string, BudgetSpendEntry>,
    calls: readonly CallRecord[],
  ): Promise<void> {
    // In one order on every replica: the rollup trigger's row locks are then taken in that order too (no deadlock).
    const rows = [...daily.values()].sort((a, b) => compare(a.project, b.project) || compare(a.day, b.day) || compare(a.alias, b.alias));
    const keyRows = [...keys.entries()];
    const hourRows = [...hourly.values()];
    // In one order too (level, subject, period): two replicas' flushes lock budget rows alike.
    const budgetRows = [...budgets.values()].sort(
      (a, b) => compare(a.level, b.level) || compare(a.subject, b.subject) || (a.periodEnd ?? Number.MAX_SAFE_INTEGER) - (b.periodEnd ?? Number.MAX_SAFE_INTEGER),
    );
    for (let tries = 1; ; tries++) {
      const written = await this.dataSource.transaction((manager) => this.writeIn(manager, rows, keyRows, hourRows, budgetRows, calls));
      if (written) return;
      if (tries === FLUSH_TURN_TRIES) throw new Error('other replicas kept the spend flush for too long');
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
    }
  }

  /** In the flush's transaction: false (nothing written) when another replica's flush holds the turn. */
  private async writeIn(
    manager: EntityManager,
    rows: readonly DailyTotals[],
    keyRows: readonly [string, KeyTotals][],
    hourRows: readonly HourlyCalls[],
    budgetRows: readonly BudgetSpendEntry[],
    calls: readonly CallRecord[],
  ): Promise<boolean> {
    const [turn] = (await manager.query('select pg_try_advisory_xact_lock($1) as taken', [SPEND_FLUSH_LOCK_ID])) as { taken: boolean }[];
    if (!turn?.taken) return false;
    if (rows.length > 0) {
      await manager.query(UPSERT_DAILY, [
        rows.map((row) => row.day),
        rows.map((row) => row.keyId),
        rows.map((row) => row.project),
        rows.map((row) => row.alias),
        rows.map((row) => row.deploymentId),
        rows.map((row) => row.provider),
        rows.map((row) => row.requests),
        rows.map((row) => row.promptTokens),
        rows.map((row) => row.completionTokens),
        rows.map((row) => usdDecimal(row.costUsd)),
        rows.map((row) => row.estimatedRequests),
        rows.map((row) => usdDecimal(row.estimatedCostUsd)),
        rows.map((row) => row.projectId),
        rows.map((row) => row.cacheHitRequests),
      ]);
    }
    if (keyRows.length > 0) {
      await manager.query(ADD_KEY_SPEND, [
        keyRows.map(([keyId]) => keyId),
        keyRows.map(([, totals]) => usdDecimal(totals.costUsd)),
        keyRows.map(([, totals]) => (totals.periodEnd === null ? null : new Date(totals.periodEnd).toISOString())),
        keyRows.map(([, totals]) => usdDecimal(totals.periodCostUsd)),
      ]);
    }
    if (hourRows.length > 0) {
      await manager.query(UPSERT_HOURLY, [
        hourRows.map((row) => row.hour),
        hourRows.map((row) => row.project),
        hourRows.map((row) => row.calls),
        hourRows.map((row) => row.errors),
        hourRows.map((row) => row.projectId),
      ]);
    }
    if (budgetRows.length > 0) {
      await manager.query(ADD_BUDGET_SPEND, [
        budgetRows.map((row) => row.level),
        budgetRows.map((row) => row.subject),
        budgetRows.map((row) => (row.periodEnd === null ? 'infinity' : new Date(row.periodEnd).toISOString())),
        budgetRows.map((row) => usdDecimal(row.costUsd)),
        budgetRows.map((row) => row.calls),
      ]);
    }
    // Appended only: no row is locked or updated, so spend logs never wait on each other.
    if (calls.length > 0) {
      await manager.query(APPEND_CALL_RECORDS, [
        calls.map((row) => row.id ?? null),
        calls.map((row) => new Date(row.startedAt).toISOString()),
        calls.map((row) => row.keyId),
        calls.map((row) => row.project),
        calls.map((row) => row.endUser),
        calls.map((row) => (row.tags.length > 0 ? row.tags.join('\u001f') : null)),
        calls.map((row) => row.alias),
        calls.map((row) => row.deploymentId),
        calls.map((row) => row.provider),
        calls.map((row) => wholeTokens(row.promptTokens)),
        calls.map((row) => wholeTokens(row.completionTokens)),
        calls.map((row) => usdDecimal(usd(row.costUsd))),
        calls.map((row) => row.status),
        calls.map((row) => row.latencyMs),
        calls.map((row) => row.cacheHit),
        calls.map((row) => row.errorCode),
        calls.map((row) => row.retries),
        calls.map((row) => row.fallbacks),
        calls.map((row) => contentJson(row.content)),
      ]);
    }
    return true;
  }
}

/** A record's content as JSON text for jsonb (which holds no NUL character: escaped ones are dropped), or null. */
export function contentJson(content: CallRecordContent | undefined): string | null {
  const document = content?.read();
  if (!document) return null;
  return JSON.stringify(document).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1');
}

function addDaily(into: Map<string, DailyTotals>, totals: DailyTotals): void {
  // NUL never occurs in a day, id, slug or configured name (and U+0001 stands for "none"): a cheap unambiguous key, built per call.
  const id = `${totals.day}\0${totals.keyId ?? '\u0001'}\0${totals.project ?? '\u0001'}\0${totals.alias}\0${totals.deploymentId}`;
  const existing = into.get(id);
  if (!existing) {
    into.set(id, { ...totals });
    return;
  }
  existing.provider = totals.provider;
  existing.requests += totals.requests;
  existing.promptTokens += totals.promptTokens;
  existing.completionTokens += totals.completionTokens;
  existing.costUsd += totals.costUsd;
  existing.estimatedRequests += totals.estimatedRequests;
  existing.estimatedCostUsd += totals.estimatedCostUsd;
  existing.cacheHitRequests += totals.cacheHitRequests;
}

function addHourly(into: Map<string, HourlyCalls>, calls: HourlyCalls): void {
  const id = `${calls.hour}\0${calls.project}`;
  const existing = into.get(id);
  if (!existing) into.set(id, { ...calls });
  else {
    existing.calls += calls.calls;
    existing.errors += calls.errors;
  }
}

function addBudgetSpend(into: Map<string, BudgetSpendEntry>, entry: BudgetSpendEntry): void {
  const id = `${entry.level}\0${entry.subject}\0${entry.periodEnd ?? 'infinity'}`;
  const existing = into.get(id);
  if (!existing) into.set(id, { ...entry });
  else {
    existing.costUsd += entry.costUsd;
    existing.calls += entry.calls;
  }
}

function addKeyTotals(into: Map<string, KeyTotals>, keyId: string, totals: KeyTotals): void {
  const existing = into.get(keyId);
  if (!existing) {
    into.set(keyId, { ...totals });
    return;
  }
  existing.costUsd += totals.costUsd;
  if (existing.periodEnd === totals.periodEnd) {
    existing.periodCostUsd += totals.periodCostUsd;
  } else if (totals.periodEnd !== null && (existing.periodEnd === null || totals.periodEnd > existing.periodEnd)) {
    // A later period (or a changed budget_duration): only its own spend counts against it.
    existing.periodEnd = totals.periodEnd;
    existing.periodCostUsd = totals.periodCostUsd;
  }
}

function compare(a: string | null, b: string | null): number {
  return (a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0;
}

function wholeTokens(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

function usd(value: number): UsdUnits {
  return Number.isFinite(value) && value > 0 ? usdUnits(value) : 0n;
}
