import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GatewayClock } from '../gateway-clock';
import { LruTtlCache } from './key-cache';
import { hashKey } from './key-material';
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
  expiresAt: number | null;
  blocked: boolean;
  // The limits KeyLimiter enforces; null: none.
  maxBudget: number | null;
  /** LiteLLM's form: 30s, 30m, 24h, 30d, 1mo; null: max_budget is a lifetime budget. */
  budgetDuration: string | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  maxParallelRequests: number | null;
  // Spend as persisted when the row was loaded (KeyLimiter's starting point; it counts on from there).
  spend: number;
  budgetSpend: number;
  budgetResetAt: number | null;
  createdAt: number;
}

/** Who called: the master key, or a virtual key. */
export type GatewayCaller = { kind: 'master' } | { kind: 'virtual'; key: VerifiedKey };

export function mayUseAlias(caller: GatewayCaller, alias: string): boolean {
  return caller.kind === 'master' || caller.key.aliases.length === 0 || caller.key.aliases.includes(alias);
}

// Bounded, and short-lived so that another replica's block or delete takes effect within the TTL.
const CACHE_ENTRIES = 10_000;
const CACHE_TTL_MS = 10_000;

/**
 * Verifies presented virtual keys without a database round trip per request: found keys are
 * cached by hash in process; the admin API evicts them on every change made in this process.
 * Unknown keys are not cached (they may be created a moment later by another replica).
 */
@Injectable()
export class KeyVerifier {
  private readonly cache: LruTtlCache<VerifiedKey>;
  private readonly pending = new Map<string, Promise<VerifiedKey | undefined>>();
  // Bumped by every eviction, so that a load started before a change does not cache the old row.
  private generation = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: GatewayClock,
  ) {
    this.cache = new LruTtlCache(CACHE_ENTRIES, CACHE_TTL_MS, () => this.clock.now());
  }

  /** The key if it exists, is not blocked and has not expired. */
  async verify(presented: string): Promise<VerifiedKey | undefined> {
    const hash = hashKey(presented);
    const key = this.cache.get(hash) ?? (await this.load(hash));
    if (!key || key.blocked) return undefined;
    if (key.expiresAt !== null && key.expiresAt <= this.clock.now()) return undefined;
    return key;
  }

  /** Forget a key's cached state after it changed. */
  evict(keyHash: string): void {
    this.generation += 1;
    this.pending.delete(keyHash);
    this.cache.delete(keyHash);
  }

  private load(hash: string): Promise<VerifiedKey | undefined> {
    // Concurrent first requests with one key share one query.
    let loading = this.pending.get(hash);
    if (!loading) {
      const generation = this.generation;
      loading = this.dataSource
        .getRepository(VirtualKey)
        .findOneBy({ keyHash: hash })
        .then((row) => {
          if (!row) return undefined;
          const key = toVerified(row);
          if (generation === this.generation) this.cache.set(hash, key);
          return key;
        })
        .finally(() => {
          if (this.pending.get(hash) === loading) this.pending.delete(hash);
        });
      this.pending.set(hash, loading);
    }
    return loading;
  }
}

function toVerified(row: VirtualKey): VerifiedKey {
  return {
    id: row.id,
    keyHash: row.keyHash,
    project: row.project,
    projectId: row.projectId,
    projectDeleted: row.projectDeletedAt !== null,
    aliases: [...row.aliases],
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    blocked: row.blocked,
    maxBudget: row.maxBudget,
    budgetDuration: row.budgetDuration,
    rpmLimit: row.rpmLimit,
    tpmLimit: row.tpmLimit,
    maxParallelRequests: row.maxParallelRequests,
    spend: row.spend,
    budgetSpend: row.budgetSpend,
    budgetResetAt: row.budgetResetAt ? row.budgetResetAt.getTime() : null,
    createdAt: row.createdAt.getTime(),
  };
}
