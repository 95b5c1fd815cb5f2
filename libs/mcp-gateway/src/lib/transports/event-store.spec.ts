import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedEventStore } from './event-store';

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } });

async function replay(store: BoundedEventStore, lastEventId: string, onSend?: (eventId: string) => Promise<void>) {
  const sent: [string, JSONRPCMessage][] = [];
  const streamId = await store.replayEventsAfter(lastEventId, {
    send: async (eventId, message) => {
      sent.push([eventId, message]);
      await onSend?.(eventId);
    },
  });
  return { streamId, sent };
}

describe('BoundedEventStore', () => {
  it('replays what a stream sent after an event, whichever way it was stored, priming events taking an id but nothing to replay', async () => {
    const store = new BoundedEventStore();
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    const first = await store.storeEvent('a', note(1));
    await store.storeEvent('b', note(2));
    const hotPriming = store.prime('a');
    const hot = store.storeData('a', JSON.stringify(note(3)));
    expect(new Set([priming, first, hotPriming, hot]).size).toBe(4);
    expect(store.streamIdFor(hot)).toBe('a');

    expect(await replay(store, priming)).toEqual({
      streamId: 'a',
      sent: [
        [first, note(1)],
        [hot, note(3)],
      ],
    });
    expect(store.eventsAfter('a', hotPriming)).toEqual([[hot, JSON.stringify(note(3))]]);
    expect(store.eventsAfter('a', priming)).toEqual([
      [first, JSON.stringify(note(1))],
      [hot, JSON.stringify(note(3))],
    ]);
    await expect(store.replayEventsAfter('no-colon', { send: async () => undefined })).rejects.toThrow('Unknown event id');
  });

  it('keeps the last `capacity` events, oldest out first', async () => {
    const store = new BoundedEventStore(3);
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent('a', note(n)));
    expect((await replay(store, 'a:0')).sent.map(([, message]) => message)).toEqual([note(3), note(4), note(5)]);
    expect(store.eventsAfter('a', ids[3])).toEqual([[ids[4], JSON.stringify(note(5))]]);
  });

  it('replays events stored while it sends, and skips those pushed out meanwhile', async () => {
    const store = new BoundedEventStore(3);
    const start = store.prime('a');
    await store.storeEvent('a', note(1));
    let more = 2;
    const { sent } = await replay(store, start, async () => {
      // Each send stores two more: the ring of three keeps up with half of them.
      if (more < 8) for (const n of [more++, more++]) await store.storeEvent('a', note(n));
    });
    const replayed = sent.map(([, message]) => (message as unknown as { params: { data: number } }).params.data);
    expect(replayed[0]).toBe(1);
    expect(replayed).toEqual([...replayed].sort((x, y) => x - y));
    expect(new Set(replayed).size).toBe(replayed.length);
    expect(replayed.at(-1)).toBe(7);
  });
});
