import type { DataSource } from 'typeorm';
import type { GatewayCaller, VerifiedKey } from '../keys/key-verifier';
import { DEFAULT_RESPONSES_RETENTION_MS, GatewaySettings } from '../gateway-settings';
import { checkedId, jsonb, responseNotFound, ResponsesStore } from './responses-store';
import { StoredResponse } from './stored-response.entity';

describe('stored responses as jsonb', () => {
  it('stores a NUL character or a lone surrogate of a prompt as U+FFFD, and leaves an escaped backslash before "u0000" as it was', () => {
    const stored = JSON.parse(jsonb({ input: 'a\u0000\u0000b', text: '\\u0000', both: '\\\u0000', lone: 'x\udfff', pair: '😀' })) as Record<string, string>;
    expect(stored).toEqual({ input: 'a\ufffd\ufffdb', text: '\\u0000', both: '\\\ufffd', lone: 'x\ufffd', pair: '😀' });
  });
});

// What the store decides on its own, before and after PostgreSQL: whose a response is, how long it
// is kept, and the responses it reserves ahead so that a call does not wait for a database write.
// The database is a recorder of the statements the store sends (the SQL itself is covered by
// apps/ai-gateway's stored-responses.integration-spec.ts, on PostgreSQL).

const keyOf = (project: string, id = `key-of-${project}`): GatewayCaller => ({ kind: 'virtual', key: { id, project } as VerifiedKey });
const MASTER: GatewayCaller = { kind: 'master' };

/** A store whose database only records what it is sent; `hold()` makes the writes wait until `release()`. */
function storeWith(settings: Partial<GatewaySettings> = {}) {
  const writes: unknown[][] = [];
  let held: (() => void)[] | undefined;
  let found: StoredResponse | null = null;
  const database = {
    query: async (_sql: string, parameters: unknown[] = []) => {
      writes.push(parameters);
      if (held) await new Promise<void>((resolve) => held?.push(resolve));
      return [];
    },
    getRepository: () => ({ findOneBy: async () => found }),
  };
  const store = new ResponsesStore(database as unknown as DataSource, settings as GatewaySettings);
  return {
    store,
    writes,
    hold: () => (held = []),
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const resolve of waiting) resolve();
    },
    holding: (response: StoredResponse) => (found = response),
  };
}

/** The response reserved ahead by a write that reserved `id`: the other response id it names. */
const spareIn = (parameters: unknown[] | undefined, id: string) => parameters?.find((value) => typeof value === 'string' && value.startsWith('resp_') && value !== id);

/** A response the client's call is answering now: its reservation made (awaited) as the pipeline makes it. */
async function opened(store: ResponsesStore, caller: GatewayCaller): Promise<StoredResponse> {
  const { record, reserved } = store.open(caller, { previousResponseId: null, input: [] });
  await reserved;
  return record;
}

describe('the stored responses store', () => {
  afterEach(() => jest.useRealTimers());

  it("records a key's response as its project's and its key's, and the master key's as nobody's", () => {
    const { store } = storeWith();
    const fields = { id: 'resp_1', status: 'completed', deploymentId: null, upstreamId: null, previousResponseId: null, input: [], response: {}, background: false };
    expect(store.record(keyOf('payments', 'key-1'), fields)).toMatchObject({ project: 'payments', keyId: 'key-1' });
    expect(store.record(MASTER, fields)).toMatchObject({ project: null, keyId: null });
  });

  it.each([
    { retention: 'the default 30 days', settings: {}, keptMs: DEFAULT_RESPONSES_RETENTION_MS },
    { retention: 'AIGW_RESPONSES_RETENTION', settings: { responsesRetentionMs: 3_600_000 }, keptMs: 3_600_000 },
  ])('keeps a response for $retention', ({ settings, keptMs }) => {
    const { store } = storeWith(settings);
    const record = store.record(MASTER, {
      id: 'resp_1',
      status: 'completed',
      deploymentId: null,
      upstreamId: null,
      previousResponseId: null,
      input: [],
      response: {},
      background: false,
    });
    expect(record.expiresAt.getTime() - record.createdAt.getTime()).toBe(keptMs);
  });

  it("writes a project's first response with a spare in one statement; the project's next call takes the spare and writes nothing", async () => {
    const { store, writes } = storeWith();
    const first = await opened(store, keyOf('payments'));
    expect(writes).toHaveLength(1);
    const spare = spareIn(writes[0], first.id);
    expect(spare).toBeDefined();
    const second = await opened(store, keyOf('payments'));
    expect(second.id).toBe(spare);
    expect(writes).toHaveLength(1);
    expect(second).toMatchObject({ status: 'in_progress', project: 'payments' });
  });

  it("never gives one project's spare to another project, nor a project's to the master key", async () => {
    const { store, writes } = storeWith();
    await opened(store, keyOf('payments'));
    const other = await opened(store, keyOf('search'));
    const master = await opened(store, MASTER);
    expect(writes).toHaveLength(3);
    expect(writes[1]).toContain(other.id);
    expect(writes[2]).toContain(master.id);
    expect(master.project).toBeNull();
  });

  it('does not give out a spare reserved more than 50 minutes ago (it expires an hour after it was written)', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { store, writes } = storeWith();
    await opened(store, keyOf('payments'));
    jest.setSystemTime(1_000_000 + 50 * 60_000);
    await opened(store, keyOf('payments'));
    expect(writes).toHaveLength(2);
  });

  it('reserves a spare for the project with each completion, up to 64 kept, so calls running at once each find one', async () => {
    const { store, writes } = storeWith();
    const completed = store.record(keyOf('payments'), {
      id: 'resp_done',
      status: 'completed',
      deploymentId: 'chat-a',
      upstreamId: 'up_1',
      previousResponseId: null,
      input: [],
      response: {},
      background: false,
    });
    for (let i = 0; i < 70; i++) await store.complete(completed);
    const writesBefore = writes.length;
    const ids = new Set<string>();
    for (let i = 0; i < 64; i++) ids.add((await opened(store, keyOf('payments'))).id);
    expect(writes).toHaveLength(writesBefore);
    expect(ids.size).toBe(64);
    await opened(store, keyOf('payments'));
    expect(writes).toHaveLength(writesBefore + 1);
  });

  it('says it is behind when 32 completions are being written at once, so that an answer waits for its own', async () => {
    const { store, hold, release } = storeWith();
    const completed = store.record(MASTER, {
      id: 'resp_done',
      status: 'completed',
      deploymentId: null,
      upstreamId: null,
      previousResponseId: null,
      input: [],
      response: {},
      background: false,
    });
    hold();
    const writing = Array.from({ length: 31 }, () => store.complete(completed));
    expect(store.behind).toBe(false);
    writing.push(store.complete(completed));
    expect(store.behind).toBe(true);
    release();
    await Promise.all(writing);
    expect(store.behind).toBe(false);
  });

  it('removes the spares it reserved when the gateway stops cleanly', async () => {
    const { store, writes } = storeWith();
    const payments = await opened(store, keyOf('payments'));
    const search = await opened(store, keyOf('search'));
    const spares = [spareIn(writes[0], payments.id), spareIn(writes[1], search.id)];
    await store.onModuleDestroy();
    expect(writes).toHaveLength(3);
    expect(writes[2]).toEqual([expect.arrayContaining(spares)]);
    expect(writes[2]?.[0]).toHaveLength(2);
  });

  it('answers 404 for a response past its retention, as for one that never existed', async () => {
    const { store, holding } = storeWith();
    const expired = store.record(MASTER, {
      id: 'resp_old',
      status: 'completed',
      deploymentId: null,
      upstreamId: null,
      previousResponseId: null,
      input: [],
      response: {},
      background: false,
    });
    expired.expiresAt = new Date(Date.now() - 1);
    holding(expired);
    await expect(store.find('resp_old', MASTER)).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
  });

  it('answers 400 naming the field for an id that is not storable text, before it reaches a query', () => {
    expect(() => checkedId('resp_\u0000', 'previous_response_id')).toThrow(
      expect.objectContaining({ status: 400, param: 'previous_response_id', message: expect.stringContaining('NUL') }),
    );
    expect(checkedId('resp_1', 'previous_response_id')).toBe('resp_1');
  });

  it('quotes an unknown id as a 64-character excerpt', () => {
    expect(responseNotFound('x'.repeat(500)).message).toBe(`Response with id '${'x'.repeat(64)}…' not found.`);
  });
});
