import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { createParser } from 'eventsource-parser';
import { errorFields } from '@arbor/observability';
import { responsesFrame, type ResponsesEvent } from '@arbor/provider-adapters';
import { CallSink } from '../calls/collected-answer';
import type { GatewayCaller } from '../keys/key-verifier';
import { badRequest } from '../gateway-errors';
import { RUNNING, type LoggedEvent, type ResponsesStore } from './responses-store';

// What a background stream has logged is written this often (and at its end), a batch at a time.
const FLUSH_EVERY_MS = 50;
// A reader of the log looks for more events this often.
const POLL_EVERY_MS = 50;
// A reader whose response ended without a last event (cancelled, or its replica gone) stops after this many empty looks.
const EMPTY_LOOKS_AFTER_END = 3;
/** The events after which a response's stream has nothing more to say. */
const LAST_EVENTS = new Set(['response.completed', 'response.incomplete', 'error']);

export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/**
 * The stream of a background response created with `stream: true`, as the call pipeline writes it:
 * each event goes on to the client that created it while that client stays (leaving does not stop
 * the response), and into the response's event log in the store, from which any replica streams it
 * again (`GET /v1/responses/{id}?stream=true&starting_after=N`). The events carry the gateway's id
 * of the response, whoever made it.
 */
export class BackgroundStream extends CallSink {
  private readonly logger = new Logger('ai-gateway');
  private readonly parser = createParser({ onEvent: (message) => this.logged(message.data) });
  private pending: LoggedEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private sawLast = false;

  constructor(
    private readonly id: string,
    private readonly store: ResponsesStore,
    private client: ServerResponse | undefined,
  ) {
    super();
    client?.once('close', () => (this.client = undefined));
  }

  /** Whether the stream said how it ended (a last event); one that broke off did not. */
  get complete(): boolean {
    return this.sawLast;
  }

  write(chunk: string | Buffer): boolean {
    this.parser.feed(chunk.toString());
    return true;
  }

  /** Adds events of the gateway's own (a failure before the stream began), as if the stream had sent them. */
  add(...events: Record<string, unknown>[]): void {
    for (const event of events) this.logged(JSON.stringify({ ...event, sequence_number: this.next }));
  }

  /** Writes what has come since the last flush, in order; resolves once all of it is stored. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.pending;
    this.pending = [];
    if (events.length > 0) {
      this.flushing = this.flushing
        .then(() => this.store.appendEvents(this.id, events))
        .catch((error: unknown) => this.logger.warn('events of a background response could not be stored', { err: errorFields(error) }));
    }
    return this.flushing;
  }

  /** Flushes the log and ends the creating client's stream. */
  async close(): Promise<void> {
    await this.flush();
    this.client?.end();
  }

  private logged(data: string): void {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof event['response'] === 'object' && event['response'] !== null) event['response'] = { ...(event['response'] as object), id: this.id, background: true };
    const sequenceNumber = typeof event['sequence_number'] === 'number' ? event['sequence_number'] : this.next;
    event['sequence_number'] = sequenceNumber;
    this.next = sequenceNumber + 1;
    if (LAST_EVENTS.has(String(event['type']))) this.sawLast = true;
    this.pending.push({ sequenceNumber, event });
    this.client?.write(responsesFrame(event as unknown as ResponsesEvent));
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
  }
}

/**
 * A background response's stream from its event log, after `startingAfter`, to its end: as the
 * events come, from whichever replica runs it. Only background responses have one.
 */
export async function followBackgroundStream(store: ResponsesStore, id: string, caller: GatewayCaller, query: URLSearchParams, response: ServerResponse): Promise<void> {
  const found = await store.find(id, caller);
  if (!found.background) throw badRequest('Only responses created with background: true can be streamed again; retrieve this one without stream.', 'stream');
  const after = query.get('starting_after');
  let last = after === null ? -1 : Number(after);
  if (!Number.isInteger(last) || last < -1) throw badRequest('starting_after must be a whole number: the sequence number of the last event seen.', 'starting_after');
  let gone = false;
  response.once('close', () => (gone = true));
  response.writeHead(200, SSE_HEADERS);
  let sawLast = false;
  let emptyLooksAfterEnd = 0;
  while (!gone) {
    const events = await store.eventsAfter(id, last);
    for (const { sequenceNumber, event } of events) {
      response.write(responsesFrame(event as unknown as ResponsesEvent));
      last = sequenceNumber;
      sawLast ||= LAST_EVENTS.has(String(event['type']));
    }
    if (events.length > 0) continue;
    if (sawLast) break;
    const status = await store.statusOf(id);
    if ((status === undefined || !RUNNING.includes(status)) && ++emptyLooksAfterEnd >= EMPTY_LOOKS_AFTER_END) break;
    await sleep(POLL_EVERY_MS);
  }
  response.end();
}
