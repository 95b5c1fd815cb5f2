import { LRUCache } from 'lru-cache';
import { hashApiKey } from './api-key-format';

/** What a lookup needs of a key to decide whether it may be used now. */
export interface UsableKey {
  /** Milliseconds since the epoch; null: never expires. */
  expiresAt: number | null;
  /** A blocked key is refused like an unknown one. */
  blocked?: boolean;
}

export interface ApiKeyLookupOptions<K extends UsableKey> {
  /** The key stored under this hash, or undefined. */
  load(keyHash: string): Promise<K | undefined>;
  /** Milliseconds since the epoch (tests drive it). Default Date.now. */
  now?: () => number;
  /** How long an answer (found or not) is kept; another replica's change shows within it. Default 10 s. */
  ttlMs?: number;
  /** Known keys kept at most. Default 10 000. */
  maxEntries?: number;
  /** Unknown hashes kept at most, apart from the known keys so that a flood of random keys never pushes them out. Default 1 000. */
  maxUnknownEntries?: number;
}

/**
 * Presented API keys to stored keys, without a database round trip per request: an answer is
 * kept by hash for a short time (found keys and unknown ones alike, apart); concurrent first
 * requests with one key share one query; `evict` after a change made here (a load that started
 * before the change does not cache the old row). The gateways' one behaviour for their keys.
 */
export class ApiKeyLookup<K extends UsableKey> {
  private readonly known: LRUCache<string, K>;
  private readonly unknown: LRUCache<string, true>;
  private readonly pending = new Map<string, Promise<K | undefined>>();
  private readonly now: () => number;
  // Bumped by every eviction, so that a load started before a change does not cache the old row.
  private generation = 0;

  constructor(private readonly options: ApiKeyLookupOptions<K>) {
    this.now = options.now ?? Date.now;
    // A clock of the caller's (tests move it) is read on every look, not once per millisecond.
    const timing = { ttl: options.ttlMs ?? 10_000, ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}) };
    this.known = new LRUCache<string, K>({ max: options.maxEntries ?? 10_000, ...timing });
    this.unknown = new LRUCache<string, true>({ max: options.maxUnknownEntries ?? 1_000, ...timing });
  }

  /** The key if it exists, is not blocked and has not expired. */
  async find(presented: string): Promise<K | undefined> {
    const keyHash = hashApiKey(presented);
    if (this.unknown.get(keyHash)) return undefined;
    const key = this.known.get(keyHash) ?? (await this.load(keyHash));
    if (!key || key.blocked) return undefined;
    if (key.expiresAt !== null && key.expiresAt <= this.now()) return undefined;
    return key;
  }

  /** Forget what is known of a key after it changed (blocked, rotated, deleted…). */
  evict(keyHash: string): void {
    this.generation += 1;
    this.pending.delete(keyHash);
    this.known.delete(keyHash);
    this.unknown.delete(keyHash);
  }

  private load(keyHash: string): Promise<K | undefined> {
    let loading = this.pending.get(keyHash);
    if (!loading) {
      const generation = this.generation;
      loading = this.options
        .load(keyHash)
        .then((key) => {
          if (generation === this.generation) {
            if (key) this.known.set(keyHash, key);
            else this.unknown.set(keyHash, true);
          }
          return key;
        })
        .finally(() => {
          if (this.pending.get(keyHash) === loading) this.pending.delete(keyHash);
        });
      this.pending.set(keyHash, loading);
    }
    return loading;
  }
}
