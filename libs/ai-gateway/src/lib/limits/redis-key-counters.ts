import type { Redis } from 'ioredis';
import type { VerifiedKey } from '../keys/key-verifier';
import { persistedBudgetSpend } from './budget-period';
import { addUsd, plusUsd } from '../pricing/usd';
import { CallSlot, CountedUsage, KeyCounters, LimitMoment } from './key-counters';

// Minute counters outlive their minute a little, for replicas whose clocks differ slightly.
const MINUTE_TTL_MS = 120_000;
// Spend counters are seeded from the key's row when missing; idle ones expire and are seeded again.
const SPEND_TTL_MS = 3_600_000;
// A parallel slot is a member of a sorted set scored by when it lapses: a crashed replica's slots
// lapse after this long instead of holding the key's limit forever.
const SLOT_HOLD_MS = 10 * 60_000;

/** One hash tag per key: a key's counters share a cluster slot, so one pipeline serves them. */
const names = (key: VerifiedKey) => {
  const base = `aigw:key:{${key.id}}`;
  return {
    spend: `${base}:spend`,
    budget: (periodEnd: number) => `${base}:budget:${periodEnd}`,
    requests: (minute: number) => `${base}:rpm:${minute}`,
    tokens: (minute: number) => `${base}:tpm:${minute}`,
    modelRequests: (alias: string, minute: number) => `${base}:model:${minute}:rpm:${alias}`,
    modelTokens: (alias: string, minute: number) => `${base}:model:${minute}:tpm:${alias}`,
    inFlight: `${base}:inflight`,
    reserved: `${base}:reserved`,
  };
};

/** A reservation's member in the key's sorted set of reservations: the call's slot and the USD it holds. */
const reservation = (slot: CallSlot) => `${slot.id}|${slot.reserve}`;

/** USD the members hold together, the call's own member left out. */
function heldByOthers(members: unknown, own: string): number {
  if (!Array.isArray(members)) return 0;
  const held: number[] = [];
  for (const member of members) {
    if (typeof member !== 'string' || member === own) continue;
    const amount = Number(member.slice(member.lastIndexOf('|') + 1));
    if (Number.isFinite(amount) && amount > 0) held.push(amount);
  }
  return held.length === 0 ? 0 : addUsd(...held);
}

/**
 * Counters in Redis, shared by every replica: one pipelined round trip per admission, settling
 * without waiting. rpm and parallel slots are exact: counted first, taken back when over the
 * limit, so N replicas together never admit more than the limit.
 */
export class RedisKeyCounters implements KeyCounters {
  constructor(
    private readonly redis: () => Redis | undefined,
    private readonly failed: (error: unknown) => void,
  ) {}

  async acquire(key: VerifiedKey, at: LimitMoment, slot: CallSlot): Promise<CountedUsage> {
    const redis = this.redis();
    if (!redis) throw new Error('Redis is not connected');
    const name = names(key);
    const pipeline = redis.pipeline();
    const reads: Partial<Record<'lifetime' | 'budget' | 'requests' | 'tokens' | 'modelRequests' | 'modelTokens' | 'parallel' | 'reserved', number>> = {};
    const read = (field: keyof typeof reads) => (reads[field] = pipeline.length - 1);

    pipeline.set(name.spend, String(key.spend), 'PX', SPEND_TTL_MS, 'NX');
    pipeline.get(name.spend);
    read('lifetime');
    if (key.maxBudget !== null && at.periodEnd !== null) {
      pipeline.set(name.budget(at.periodEnd), String(persistedBudgetSpend(key, at.periodEnd)), 'PX', SPEND_TTL_MS, 'NX');
      pipeline.get(name.budget(at.periodEnd));
      read('budget');
    }
    if (key.rpmLimit !== null) {
      pipeline.incr(name.requests(at.minute));
      read('requests');
      pipeline.pexpire(name.requests(at.minute), MINUTE_TTL_MS);
    }
    if (key.tpmLimit !== null) {
      pipeline.get(name.tokens(at.minute));
      read('tokens');
    }
    const model = slot.model;
    if (model?.rpm != null) {
      pipeline.incr(name.modelRequests(model.alias, at.minute));
      read('modelRequests');
      pipeline.pexpire(name.modelRequests(model.alias, at.minute), MINUTE_TTL_MS);
    }
    if (model?.tpm != null) {
      pipeline.get(name.modelTokens(model.alias, at.minute));
      read('modelTokens');
    }
    if (key.maxParallelRequests !== null) {
      pipeline.zremrangebyscore(name.inFlight, '-inf', at.now);
      pipeline.zadd(name.inFlight, at.now + SLOT_HOLD_MS, slot.id);
      pipeline.zcard(name.inFlight);
      read('parallel');
      pipeline.pexpire(name.inFlight, SLOT_HOLD_MS);
    }
    if (key.maxBudget !== null) {
      // Held first, then read: of two replicas admitting at once, each sees the other's (a crashed
      // replica's reservations lapse as its slots do).
      pipeline.zremrangebyscore(name.reserved, '-inf', at.now);
      if (slot.reserve > 0) pipeline.zadd(name.reserved, at.now + SLOT_HOLD_MS, reservation(slot));
      pipeline.zrange(name.reserved, 0, -1);
      read('reserved');
      pipeline.pexpire(name.reserved, SLOT_HOLD_MS);
    }

    const results = await pipeline.exec();
    if (!results) throw new Error('Redis answered no results');
    for (const [error] of results) if (error) throw error;
    const value = (field: keyof typeof reads): number => {
      const index = reads[field];
      return index === undefined ? 0 : Number(results[index]?.[1] ?? 0) || 0;
    };
    const lifetimeSpend = value('lifetime');
    return {
      requests: value('requests'),
      tokens: value('tokens'),
      modelRequests: value('modelRequests'),
      modelTokens: value('modelTokens'),
      parallel: value('parallel'),
      budgetSpend: reads.budget === undefined ? lifetimeSpend : value('budget'),
      lifetimeSpend,
      reserved: reads.reserved === undefined ? 0 : heldByOthers(results[reads.reserved]?.[1], reservation(slot)),
    };
  }

  refund(key: VerifiedKey, at: LimitMoment, slot: CallSlot): void {
    const redis = this.redis();
    if (!redis) return;
    const name = names(key);
    const pipeline = redis.pipeline();
    if (key.rpmLimit !== null) pipeline.decr(name.requests(at.minute));
    if (slot.model?.rpm != null) pipeline.decr(name.modelRequests(slot.model.alias, at.minute));
    if (key.maxParallelRequests !== null) pipeline.zrem(name.inFlight, slot.id);
    if (key.maxBudget !== null && slot.reserve > 0) pipeline.zrem(name.reserved, reservation(slot));
    if (pipeline.length > 0) pipeline.exec().catch(this.failed);
  }

  settle(key: VerifiedKey, at: LimitMoment, slot: CallSlot, usage: { tokens: number; cost: number }, admitted: CountedUsage): number {
    const redis = this.redis();
    if (redis) {
      const name = names(key);
      const pipeline = redis.pipeline();
      if (key.maxParallelRequests !== null) pipeline.zrem(name.inFlight, slot.id);
      if (key.tpmLimit !== null && usage.tokens > 0) {
        pipeline.incrby(name.tokens(at.minute), usage.tokens);
        pipeline.pexpire(name.tokens(at.minute), MINUTE_TTL_MS);
      }
      if (slot.model?.tpm != null && usage.tokens > 0) {
        pipeline.incrby(name.modelTokens(slot.model.alias, at.minute), usage.tokens);
        pipeline.pexpire(name.modelTokens(slot.model.alias, at.minute), MINUTE_TTL_MS);
      }
      if (usage.cost > 0) {
        pipeline.incrbyfloat(name.spend, usage.cost);
        pipeline.pexpire(name.spend, SPEND_TTL_MS);
        if (key.maxBudget !== null && at.periodEnd !== null) {
          pipeline.incrbyfloat(name.budget(at.periodEnd), usage.cost);
          pipeline.pexpire(name.budget(at.periodEnd), SPEND_TTL_MS);
        }
      }
      // After the spend: what the call held is never missing from both.
      if (key.maxBudget !== null && slot.reserve > 0) pipeline.zrem(name.reserved, reservation(slot));
      if (pipeline.length > 0) pipeline.exec().catch(this.failed);
    }
    // Without waiting: what this replica saw at admission plus this call's cost.
    return plusUsd(admitted.lifetimeSpend, usage.cost);
  }
}
