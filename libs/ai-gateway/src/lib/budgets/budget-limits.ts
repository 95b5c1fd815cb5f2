import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { errorFields } from '@arbor/observability';
import { DataSource, IsNull, MoreThan, Repository } from 'typeorm';
import { BudgetLimit } from './budget-limit.entity';

/** The levels kept in budget_limits. */
export type LimitedLevel = 'end-user' | 'project' | 'person' | 'tag';

/** What a call needs of a subject's row. */
export interface SubjectLimit {
  readonly blocked: boolean;
  readonly maxBudget: number | null;
  readonly budgetDuration: string | null;
  /** A project's guardrails (none for the other levels). */
  readonly guardrails: readonly string[];
  /** A project's requests and tokens per minute over all its keys; null: none. */
  readonly rpmLimit: number | null;
  readonly tpmLimit: number | null;
  /** The aliases a project's keys may call; empty: no restriction of the project's. */
  readonly models: readonly string[];
}

/** The fields of a subject that the management APIs set (absent: unchanged). */
export type LimitChange = Partial<Pick<BudgetLimit, 'alias' | 'blocked' | 'maxBudget' | 'budgetDuration' | 'metadata' | 'guardrails' | 'rpmLimit' | 'tpmLimit' | 'models'>>;

// How often each replica reads the rows changed since its last read, and how far back it reads
// again (a transaction that committed late with an earlier updated_at is still seen).
const REFRESH_MS = 2_000;
const REREAD_MS = 10_000;

/**
 * Every end user's, project's, person's (in a project) and tag's budget row, held in memory so that a call looks its subject up
 * without a database round trip. Changes made here apply at once on this replica; other replicas
 * read what changed every two seconds (a deletion is a tombstone they read too).
 */
@Injectable()
export class BudgetLimits implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ai-gateway-budgets');
  private readonly rows: Repository<BudgetLimit>;
  private readonly byLevel: Record<LimitedLevel, Map<string, SubjectLimit>> = { 'end-user': new Map(), project: new Map(), person: new Map(), tag: new Map() };
  private readSince = new Date(0);
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.rows = dataSource.getRepository(BudgetLimit);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().then(
        () => (this.failing = false),
        (error: unknown) => {
          if (!this.failing) this.logger.warn('budget limits could not be read; the last ones read stay in force', { err: errorFields(error) });
          this.failing = true;
        },
      );
    }, REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Whether any subject of the level has a row: when none has, calls do not look the level up. */
  any(level: LimitedLevel): boolean {
    return this.byLevel[level].size > 0;
  }

  /** The subject's row as calls see it; undefined: none. */
  of(level: LimitedLevel, subject: string): SubjectLimit | undefined {
    return this.byLevel[level].get(subject);
  }

  /** The stored row (deleted ones are none). */
  async find(level: LimitedLevel, subject: string): Promise<BudgetLimit | null> {
    return this.rows.findOneBy({ level, subject, deletedAt: IsNull() });
  }

  async list(level: LimitedLevel): Promise<BudgetLimit[]> {
    return this.rows.find({ where: { level, deletedAt: IsNull() }, order: { subject: 'ASC' } });
  }

  /** Creates the subject's row or changes it (a deleted one comes back), and applies it here at once. */
  async save(level: LimitedLevel, subject: string, change: LimitChange): Promise<BudgetLimit> {
    const existing = await this.rows.findOneBy({ level, subject });
    const row =
      existing ??
      this.rows.create({
        level,
        subject,
        alias: null,
        blocked: false,
        maxBudget: null,
        budgetDuration: null,
        metadata: {},
        guardrails: [],
        rpmLimit: null,
        tpmLimit: null,
        models: [],
        deletedAt: null,
      });
    Object.assign(row, change, { deletedAt: null });
    const saved = await this.rows.save(row);
    this.apply(saved);
    return saved;
  }

  async delete(level: LimitedLevel, subject: string): Promise<void> {
    await this.rows.update({ level, subject }, { deletedAt: new Date() });
    this.byLevel[level].delete(subject);
  }

  private async refresh(): Promise<void> {
    const since = new Date(Math.max(0, this.readSince.getTime() - REREAD_MS));
    const changed = await this.rows.find({ where: { updatedAt: MoreThan(since) }, order: { updatedAt: 'ASC' } });
    for (const row of changed) {
      this.apply(row);
      if (row.updatedAt > this.readSince) this.readSince = row.updatedAt;
    }
  }

  private apply(row: BudgetLimit): void {
    const level = row.level as LimitedLevel;
    const subjects = this.byLevel[level];
    if (!subjects) return;
    if (row.deletedAt !== null) subjects.delete(row.subject);
    else {
      subjects.set(row.subject, {
        blocked: row.blocked,
        maxBudget: row.maxBudget,
        budgetDuration: row.budgetDuration,
        guardrails: row.guardrails ?? [],
        rpmLimit: row.rpmLimit ?? null,
        tpmLimit: row.tpmLimit ?? null,
        models: row.models ?? [],
      });
    }
  }
}
