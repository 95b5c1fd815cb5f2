import type { DataSource } from 'typeorm';
import { GatewayClock } from '../gateway-clock';
import { LruTtlCache } from './key-cache';
import { hashKey } from './key-material';
import { KeyVerifier } from './key-verifier';
import { VirtualKey } from './virtual-key.entity';

class FakeClock extends GatewayClock {
  time = 1_000_000;
  override now(): number {
    return this.time;
  }
}

function fakeDatabase(rows: Partial<VirtualKey>[]) {
  const queries: string[] = [];
  const dataSource = {
    getRepository: () => ({
      findOneBy: async ({ keyHash }: { keyHash: string }) => {
        queries.push(keyHash);
        const row = rows.find((candidate) => candidate.keyHash === keyHash);
        return row ? { ...row } : null;
      },
    }),
  } as unknown as DataSource;
  return { dataSource, queries };
}

const row = (key: string, extra: Partial<VirtualKey> = {}): Partial<VirtualKey> => ({
  id: `id-${key}`,
  keyHash: hashKey(key),
  project: 'alpha',
  aliases: [],
  expiresAt: null,
  blocked: false,
  createdAt: new Date(0),
  ...extra,
});

describe('KeyVerifier', () => {
  it('answers repeated requests with one key from its cache, not the database', async () => {
    const { dataSource, queries } = fakeDatabase([row('sk-a')]);
    const verifier = new KeyVerifier(dataSource, new FakeClock());
    await Promise.all([verifier.verify('sk-a'), verifier.verify('sk-a')]);
    for (let i = 0; i < 10; i += 1) expect(await verifier.verify('sk-a')).toMatchObject({ project: 'alpha' });
    expect(queries).toHaveLength(1);
  });

  it('reloads after the TTL and after an eviction', async () => {
    const rows = [row('sk-a')];
    const { dataSource, queries } = fakeDatabase(rows);
    const clock = new FakeClock();
    const verifier = new KeyVerifier(dataSource, clock);
    await verifier.verify('sk-a');
    clock.time += 10_001;
    await verifier.verify('sk-a');
    expect(queries).toHaveLength(2);
    rows[0] = row('sk-a', { blocked: true });
    verifier.evict(hashKey('sk-a'));
    expect(await verifier.verify('sk-a')).toBeUndefined();
    expect(queries).toHaveLength(3);
  });

  it('refuses expired keys from its cache as time passes', async () => {
    const clock = new FakeClock();
    const { dataSource } = fakeDatabase([row('sk-a', { expiresAt: new Date(clock.time + 5_000) })]);
    const verifier = new KeyVerifier(dataSource, clock);
    expect(await verifier.verify('sk-a')).toBeDefined();
    clock.time += 5_000;
    expect(await verifier.verify('sk-a')).toBeUndefined();
  });

  it('does not cache a row loaded before an eviction', async () => {
    const rows = [row('sk-a')];
    const { dataSource, queries } = fakeDatabase(rows);
    const verifier = new KeyVerifier(dataSource, new FakeClock());
    const stale = verifier.verify('sk-a');
    rows[0] = row('sk-a', { blocked: true });
    verifier.evict(hashKey('sk-a'));
    await stale;
    expect(await verifier.verify('sk-a')).toBeUndefined();
    expect(queries).toHaveLength(2);
  });
});

describe('LruTtlCache', () => {
  it('drops the least recently used entry beyond its bound', () => {
    const cache = new LruTtlCache<number>(2, 1000, () => 0);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });
});
