import { ApiKeyFormat, hashApiKey } from './api-key-format';
import { ApiKeyLookup } from './api-key-lookup';

interface Key {
  project: string;
  expiresAt: number | null;
  blocked?: boolean;
}

function store(rows: Map<string, Key>) {
  const queries: string[] = [];
  const clock = { time: 1_000_000 };
  const lookup = new ApiKeyLookup<Key>({
    load: async (keyHash) => {
      queries.push(keyHash);
      const key = rows.get(keyHash);
      return key ? { ...key } : undefined;
    },
    now: () => clock.time,
    maxUnknownEntries: 2,
  });
  return { lookup, queries, clock };
}

const rowsOf = (entries: [string, Key][]) => new Map(entries.map(([key, row]) => [hashApiKey(key), row]));

describe('ApiKeyLookup (both gateways)', () => {
  it('answers repeated requests with one key from its cache, not the database', async () => {
    const { lookup, queries } = store(rowsOf([['sk-a', { project: 'alpha', expiresAt: null }]]));
    await Promise.all([lookup.find('sk-a'), lookup.find('sk-a')]);
    for (let i = 0; i < 10; i += 1) expect(await lookup.find('sk-a')).toMatchObject({ project: 'alpha' });
    expect(queries).toHaveLength(1);
  });

  it('remembers an unknown key as briefly as a known one, apart, so that floods of random keys never push known ones out', async () => {
    const { lookup, queries, clock } = store(rowsOf([['sk-a', { project: 'alpha', expiresAt: null }]]));
    await lookup.find('sk-a');
    for (let i = 0; i < 3; i += 1) expect(await lookup.find('sk-nope')).toBeUndefined();
    expect(queries).toHaveLength(2);
    for (const random of ['sk-r1', 'sk-r2', 'sk-r3', 'sk-r4']) await lookup.find(random);
    expect(await lookup.find('sk-a')).toBeDefined();
    expect(queries).toHaveLength(6);
    clock.time += 10_001;
    await lookup.find('sk-nope');
    expect(queries).toHaveLength(7);
  });

  it('reloads after the TTL and after an eviction', async () => {
    const rows = rowsOf([['sk-a', { project: 'alpha', expiresAt: null }]]);
    const { lookup, queries, clock } = store(rows);
    await lookup.find('sk-a');
    clock.time += 10_001;
    await lookup.find('sk-a');
    expect(queries).toHaveLength(2);
    rows.set(hashApiKey('sk-a'), { project: 'alpha', expiresAt: null, blocked: true });
    lookup.evict(hashApiKey('sk-a'));
    expect(await lookup.find('sk-a')).toBeUndefined();
    expect(queries).toHaveLength(3);
  });

  it('refuses expired keys from its cache as time passes', async () => {
    const clock = { time: 1_000_000 };
    const rows = rowsOf([['sk-a', { project: 'alpha', expiresAt: clock.time + 5_000 }]]);
    const timed = new ApiKeyLookup<Key>({ load: async (keyHash) => rows.get(keyHash), now: () => clock.time });
    expect(await timed.find('sk-a')).toBeDefined();
    clock.time += 5_000;
    expect(await timed.find('sk-a')).toBeUndefined();
  });

  it('keeps at most maxEntries known keys, dropping the one used least recently', async () => {
    const rows = rowsOf([
      ['sk-a', { project: 'alpha', expiresAt: null }],
      ['sk-b', { project: 'beta', expiresAt: null }],
      ['sk-c', { project: 'gamma', expiresAt: null }],
    ]);
    const queries: string[] = [];
    const bounded = new ApiKeyLookup<Key>({ load: async (keyHash) => (queries.push(keyHash), rows.get(keyHash)), maxEntries: 2 });
    for (const key of ['sk-a', 'sk-b', 'sk-a', 'sk-c']) await bounded.find(key);
    expect(queries).toEqual([hashApiKey('sk-a'), hashApiKey('sk-b'), hashApiKey('sk-c')]);
    for (const key of ['sk-a', 'sk-c', 'sk-b']) await bounded.find(key);
    expect(queries.slice(3)).toEqual([hashApiKey('sk-b')]);
  });

  it('keeps at most maxUnknownEntries unknown keys, so that a flood of random keys takes bounded memory', async () => {
    const { lookup, queries } = store(new Map());
    for (const key of ['sk-r1', 'sk-r2', 'sk-r3']) await lookup.find(key);
    await lookup.find('sk-r3');
    expect(queries).toHaveLength(3);
    await lookup.find('sk-r1');
    expect(queries).toHaveLength(4);
  });

  it('does not cache a row loaded before an eviction', async () => {
    const rows = rowsOf([['sk-a', { project: 'alpha', expiresAt: null }]]);
    const { lookup, queries } = store(rows);
    const stale = lookup.find('sk-a');
    rows.set(hashApiKey('sk-a'), { project: 'alpha', expiresAt: null, blocked: true });
    lookup.evict(hashApiKey('sk-a'));
    await stale;
    expect(await lookup.find('sk-a')).toBeUndefined();
    expect(queries).toHaveLength(2);
  });
});

describe('ApiKeyFormat', () => {
  it('makes random keys with its prefix, shows only a hint, and stores only the hash', () => {
    const format = new ApiKeyFormat('sk-arbor-');
    const key = format.generate();
    expect(key).toMatch(/^sk-arbor-[A-Za-z0-9_-]{43}$/);
    expect(format.generate()).not.toBe(key);
    expect(format.hint(key)).toBe(`sk-arbor-…${key.slice(-4)}`);
    expect(format.hash(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(format.matches(key)).toBe(true);
    expect(format.matches('eyJhbGciOi.x.y')).toBe(false);
  });
});
