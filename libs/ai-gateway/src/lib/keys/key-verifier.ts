import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { aliasPattern } from '../config/wildcard-alias';
import { GatewayClock } from '../gateway-clock';
import { ApiKeyLookup } from '@arbor/api-keys';
import { VirtualKey } from './virtual-key.entity';

/** What a route needs to know of the caller's virtual key. */
export interface VerifiedKey {
  id: string;
  keyHash: string;
  project: string;
  /** The control plane's id of the project, when known. */
  projectId: string | null;
  /** The control plane deleted the key's project: the key is refused, saying so. */
  projectDeleted: boolean;
  /** Empty: every alias. */
  aliases: readonly string[];
  /** Guardrails that run on every call of the key. */
  guardrails: readonly string[];
  expiresAt: number | null;
  blocked: boolean;
  // The limits KeyLimiter enforces; null: none.
  maxBudget: number | null;
  /** LiteLLM's form: 30s, 30m, 24h, 30d, 1mo; null: max_budget is a lifetime budget. */
  budgetDuration: string | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  maxParallelRequests: number | null;
  /** Alerted on once per period when reached; null: none. */
  softBudget: number | null;
  /** The person the key is for (a control-plane user id), whose budget in the project applies; null: nobody's. */
  userId: string | null;
  /** LiteLLM's model_rpm_limit / model_tpm_limit by alias (KeyLimiter enforces them); null: none, and nothing to count. */
  modelRateLimits: ReadonlyMap<string, { rpm: number | null; tpm: number | null }> | null;
  /** LiteLLM's model_max_budget by alias (budgets/Budgets enforces it); null: none, and nothing to check. */
  modelBudgets: ReadonlyMap<string, { maxBudget: number; budgetDuration: string | null }> | null;
  // Spend as persisted when the row was loaded (KeyLimiter's starting point; it counts on from there).
  spend: number;
  budgetSpend: number;
  budgetResetAt: number | null;
  createdAt: number;
}

/** Who called: the master key, or a virtual key. */
export type GatewayCaller = { kind: 'master' } | { kind: 'virtual'; key: VerifiedKey };

/**
 * A key's allowed aliases are names or wildcard patterns: `anthropic/*` allows every name that
 * pattern matches (whatever alias serves it), `anthropic/claude-sonnet-4-5` only that name (also
 * when a wildcard alias serves it), `*` everything. Empty: every alias.
 */
export function mayUseAlias(caller: GatewayCaller, alias: string): boolean {
  return caller.kind === 'master' || caller.key.aliases.length === 0 || aliasAllowedBy(caller.key.aliases, alias);
}

/** Whether a list of aliases (a key's, a project's) names `alias`, or a wildcard pattern of the list matches it. */
export function aliasAllowedBy(allowed: readonly string[], alias: string): boolean {
  return allowed.includes(alias) || allowed.some((name) => name.includes('*') && compiledPattern(name).test(alias));
}

const patterns = new Map<string, RegExp>();

function compiledPattern(allowed: string): RegExp {
  let pattern = patterns.get(allowed);
  if (!pattern) patterns.set(allowed, (pattern = aliasPattern(allowed)));
  return pattern;
}

/**
 * Verifies presented virtual keys with the gateways' one key lookup (@arbor/api-keys): answers
 * cached by hash for a few seconds, so another replica's block or delete takes effect within
 * them; the admin API (and KeyChangeBus, for other replicas) evicts on every change.
 */
@Injectable()
export class KeyVerifier {
  private readonly lookup: ApiKeyLookup<VerifiedKey>;

  constructor(@InjectDataSource() dataSource: DataSource, clock: GatewayClock) {
    this.lookup = new ApiKeyLookup({
      load: async (keyHash) => {
        const row = await dataSource.getRepository(VirtualKey).findOneBy({ keyHash });
        return row ? toVerified(row) : undefined;
      },
      now: () => clock.now(),
    });
  }

  /** The key if it exists, is not blocked and has not expired. */
  verify(presented: string): Promise<VerifiedKey | undefined> {
    return this.lookup.find(presented);
  }

  /** Forget a key's cached state after it changed. */
  evict(keyHash: string): void {
    this.lookup.evict(keyHash);
  }
}

function modelBudgetsOf(row: VirtualKey): VerifiedKey['modelBudgets'] {
  const entries = Object.entries(row.modelMaxBudget ?? {});
  if (entries.length === 0) return null;
  return new Map(entries.map(([alias, budget]) => [alias, { maxBudget: budget.max_budget, budgetDuration: budget.budget_duration }]));
}

function modelRateLimitsOf(row: VirtualKey): VerifiedKey['modelRateLimits'] {
  const aliases = new Set([...Object.keys(row.modelRpmLimit ?? {}), ...Object.keys(row.modelTpmLimit ?? {})]);
  if (aliases.size === 0) return null;
  return new Map([...aliases].map((alias) => [alias, { rpm: row.modelRpmLimit?.[alias] ?? null, tpm: row.modelTpmLimit?.[alias] ?? null }]));
}

function toVerified(row: VirtualKey): VerifiedKey {
  return {
    id: row.id,
    keyHash: row.keyHash,
    project: row.project,
    projectId: row.projectId,
    projectDeleted: row.projectDeletedAt !== null,
    aliases: [...row.aliases],
    guardrails: [...row.guardrails],
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    blocked: row.blocked,
    maxBudget: row.maxBudget,
    budgetDuration: row.budgetDuration,
    rpmLimit: row.rpmLimit,
    tpmLimit: row.tpmLimit,
    maxParallelRequests: row.maxParallelRequests,
    softBudget: row.softBudget,
    userId: row.userId,
    modelRateLimits: modelRateLimitsOf(row),
    modelBudgets: modelBudgetsOf(row),
    spend: row.spend,
    budgetSpend: row.budgetSpend,
    budgetResetAt: row.budgetResetAt ? row.budgetResetAt.getTime() : null,
    createdAt: row.createdAt.getTime(),
  };
}
