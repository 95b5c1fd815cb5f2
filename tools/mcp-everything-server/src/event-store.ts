// Resumability for one session's SSE streams: every event the transport sends is kept (the most
// recent MAX_EVENTS of them), so a client that lost a stream can reconnect with Last-Event-ID and
// be sent what it missed. One store per session, dropped with it.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const MAX_EVENTS = 1000;

export class InMemoryEventStore implements EventStore {
  // Insertion order is event order, which replay relies on.
  readonly #events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  #sequence = 0;

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.#sequence += 1;
    const eventId = `${this.#sequence}`;
    this.#events.set(eventId, { streamId, message });
    if (this.#events.size > MAX_EVENTS) this.#events.delete(this.#events.keys().next().value as EventId);
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = this.#events.get(lastEventId)?.streamId;
    if (streamId === undefined) return '';
    let after = false;
    for (const [eventId, event] of this.#events) {
      if (after && event.streamId === streamId) await send(eventId, event.message);
      if (eventId === lastEventId) after = true;
    }
    return streamId;
  }
}
