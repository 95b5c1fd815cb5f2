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
    const eventId = `${streamId}:${++this.next}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > this.capacity) this.events.delete(this.events.keys().next().value as EventId);
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId ?? streamOf(eventId);
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = this.events.get(lastEventId)?.streamId ?? streamOf(lastEventId);
    if (!streamId) throw new Error('Unknown event id');
    const after = Number(lastEventId.slice(lastEventId.lastIndexOf(':') + 1));
    for (const [eventId, event] of this.events) {
      // Priming events carry no message: nothing to replay.
      if (event.streamId !== streamId || Number(eventId.slice(eventId.lastIndexOf(':') + 1)) <= after) continue;
      if (Object.keys(event.message).length > 0) await send(eventId, event.message);
    }
    return streamId;
  }
}

function streamOf(eventId: EventId): StreamId | undefined {
  const colon = eventId.lastIndexOf(':');
  return colon > 0 ? eventId.slice(0, colon) : undefined;
}
