import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** One stored event: the SDK transport's as the message it gave, the hot path's as the JSON it wrote. */
interface StoredEvent {
  id: EventId;
  streamId: StreamId;
  sequence: number;
  message?: JSONRPCMessage;
  data?: string;
}

/**
 * The last events of one session's SSE streams, kept so a client that lost a stream resumes it
 * with Last-Event-ID. Bounded: the oldest events go first, so a client gone too long resumes
 * with a gap rather than the gateway growing without limit. A ring rather than a Map used as a
 * queue (deleting its oldest key on every store slows with the holes it leaves); priming events
 * take an id but no place, having nothing to replay; an event id names its stream.
 */
export class BoundedEventStore implements EventStore {
  private readonly ring: (StoredEvent | undefined)[] = [];
  /** Ids handed out: priming events count, so every id is new. */
  private sequence = 0;
  /** Events stored since the start; the newest is at (stored - 1) % capacity. */
  private stored = 0;

  constructor(private readonly capacity = 1000) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    return this.keep(streamId, isMessage(message) ? message : undefined, undefined);
  }

  /** A priming event's id: nothing stored. */
  prime(streamId: StreamId): EventId {
    return this.keep(streamId, undefined, undefined);
  }

  /** A message the hot path writes as `data` (its JSON): stored as that text. */
  storeData(streamId: StreamId, data: string): EventId {
    return this.keep(streamId, undefined, data);
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.streamIdFor(eventId);
  }

  streamIdFor(eventId: EventId): StreamId | undefined {
    const colon = eventId.lastIndexOf(':');
    return colon > 0 ? eventId.slice(0, colon) : undefined;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = this.streamIdFor(lastEventId);
    if (!streamId) throw new Error('Unknown event id');
    const after = sequenceOf(lastEventId);
    // Live: events stored while one is being sent are replayed too; those pushed out meanwhile are skipped.
    for (let index = this.oldest(); index < this.stored; index = Math.max(index + 1, this.oldest())) {
      const event = this.ring[index % this.capacity] as StoredEvent;
      if (event.streamId === streamId && event.sequence > after) await send(event.id, event.message ?? (JSON.parse(event.data as string) as JSONRPCMessage));
    }
    return streamId;
  }

  /** The events of `streamId` stored after `lastEventId`, oldest first, each as its id and its JSON. */
  eventsAfter(streamId: StreamId, lastEventId: EventId): [EventId, string][] {
    const after = sequenceOf(lastEventId);
    const found: [EventId, string][] = [];
    for (let index = this.oldest(); index < this.stored; index++) {
      const event = this.ring[index % this.capacity] as StoredEvent;
      if (event.streamId === streamId && event.sequence > after) found.push([event.id, event.data ?? JSON.stringify(event.message)]);
    }
    return found;
  }

  private keep(streamId: StreamId, message: JSONRPCMessage | undefined, data: string | undefined): EventId {
    const sequence = ++this.sequence;
    const id = `${streamId}:${sequence}`;
    if (message !== undefined || data !== undefined) this.ring[this.stored++ % this.capacity] = { id, streamId, sequence, message, data };
    return id;
  }

  private oldest(): number {
    return Math.max(0, this.stored - this.capacity);
  }
}

function sequenceOf(eventId: EventId): number {
  return Number(eventId.slice(eventId.lastIndexOf(':') + 1));
}

/** Priming events carry no message: nothing to replay. */
function isMessage(message: JSONRPCMessage): boolean {
  return Object.keys(message).length > 0;
}
