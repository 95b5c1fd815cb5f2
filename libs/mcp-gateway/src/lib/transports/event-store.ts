import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The last events of one session's SSE streams, kept so a client that lost a stream resumes it
 * with Last-Event-ID. Bounded: the oldest events go first, so a client gone too long resumes
 * with a gap rather than the gateway growing without limit.
 */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  private next = 0;

  constructor(private readonly capacity = 1000) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    return this.store(streamId, message);
  }

  /** storeEvent, for the hot path's streams, which write the event as soon as it has its id. */
  store(streamId: StreamId, message: JSONRPCMessage | Record<string, never>): EventId {
    const eventId = `${streamId}:${++this.next}`;
    this.events.set(eventId, { streamId, message: message as JSONRPCMessage });
    if (this.events.size > this.capacity) this.events.delete(this.events.keys().next().value as EventId);
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.streamIdFor(eventId);
  }

  streamIdFor(eventId: EventId): StreamId | undefined {
    return this.events.get(eventId)?.streamId ?? streamOf(eventId);
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = this.streamIdFor(lastEventId);
    if (!streamId) throw new Error('Unknown event id');
    const after = sequenceOf(lastEventId);
    // Live iteration: events stored while one is being sent are replayed too.
    for (const [eventId, event] of this.events) {
      if (event.streamId === streamId && sequenceOf(eventId) > after && isMessage(event.message)) await send(eventId, event.message);
    }
    return streamId;
  }

  /** The events of `streamId` stored after `lastEventId`, oldest first. */
  eventsAfter(streamId: StreamId, lastEventId: EventId): [EventId, JSONRPCMessage][] {
    const after = sequenceOf(lastEventId);
    const found: [EventId, JSONRPCMessage][] = [];
    for (const [eventId, event] of this.events) {
      if (event.streamId === streamId && sequenceOf(eventId) > after && isMessage(event.message)) found.push([eventId, event.message]);
    }
    return found;
  }
}

function sequenceOf(eventId: EventId): number {
  return Number(eventId.slice(eventId.lastIndexOf(':') + 1));
}

/** Priming events carry no message: nothing to replay. */
function isMessage(message: JSONRPCMessage): boolean {
  return Object.keys(message).length > 0;
}

function streamOf(eventId: EventId): StreamId | undefined {
  const colon = eventId.lastIndexOf(':');
  return colon > 0 ? eventId.slice(0, colon) : undefined;
}
