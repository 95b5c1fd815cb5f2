import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport, StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { DEFAULT_SSE_KEEP_ALIVE_MS } from '@modelcontextprotocol/sdk/server/sseKeepAlive.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { BoundedEventStore } from './event-store';
import { refusal, sendRefusal } from './mcp-edge';

/** The first protocol version whose clients take an SSE event without data (the priming event). */
const PRIMING_SINCE = '2025-11-25';
const KEEP_ALIVE = ': keepalive\n\n';
/** How long a hot call's answer may keep its stream's head waiting (see HotStream). */
const HEAD_DELAY_MS = 50;

/**
 * A stateful session's Streamable HTTP transport: the SDK's, plus the SSE streams of the calls the
 * hot path answers on it (HotStream). The session's server never sees a hot call, but what it
 * sends related to one (an upstream's notifications and requests, relayed during the call) goes
 * on that call's stream, as the SDK transport puts it on the POST's stream; the client's
 * `notifications/cancelled` for a hot call aborts it; a GET resuming a hot call's stream with
 * `Last-Event-ID` is served here; closing the session ends the hot streams.
 */
export class SessionTransport extends StreamableHTTPServerTransport {
  private readonly hot = new Map<RequestId, HotStream>();

  constructor(
    readonly events: BoundedEventStore,
    options: Omit<StreamableHTTPServerTransportOptions, 'eventStore' | 'enableJsonResponse'>,
  ) {
    // SSE answers always: the hot streams answer as the SDK transport does without enableJsonResponse.
    super({ ...options, eventStore: events });
  }

  /**
   * A stream for the hot call `id`, its head (and priming event) written to `response`; undefined
   * when a call with that id is already in flight here (the SDK path sorts that out).
   */
  openHotStream(id: RequestId, protocolVersion: string | undefined, response: ServerResponse): HotStream | undefined {
    if (this.hot.has(id) || this.sessionId === undefined) return undefined;
    const stream = new HotStream(this.events, this.sessionId, (protocolVersion ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION) >= PRIMING_SINCE, () => this.hot.delete(id));
    this.hot.set(id, stream);
    stream.attach(response, undefined);
    return stream;
  }

  /**
   * Serves a GET with Last-Event-ID that resumes a hot call still in flight (true), as the SDK
   * transport resumes its own streams: what was missed, then the rest of the call.
   */
  resumeHotStream(req: IncomingMessage, res: ServerResponse): boolean {
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId !== 'string' || !req.headers.accept?.includes('text/event-stream')) return false;
    const streamId = this.events.streamIdFor(lastEventId);
    if (streamId === undefined) return false;
    for (const stream of this.hot.values()) {
      if (stream.streamId !== streamId) continue;
      if (stream.attached) sendRefusal(res, refusal(409, 'Conflict: Stream already has an active connection'));
      else stream.attach(res, lastEventId);
      return true;
    }
    return false;
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // Requests and notifications related to a hot call; answers are the SDK path's own.
    const related = options?.relatedRequestId;
    const stream = related === undefined || isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? undefined : this.hot.get(related);
    if (stream) return stream.write(message);
    return super.send(message, options);
  }

  // The session's server installs these on connect; each is wrapped to look at hot calls first.
  override set onmessage(handler: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined) {
    super.onmessage =
      handler &&
      ((message, extra) => {
        if ('method' in message && message.method === 'notifications/cancelled' && this.hot.size > 0) {
          const params = message.params as { requestId?: RequestId; reason?: string } | undefined;
          if (params?.requestId !== undefined) this.hot.get(params.requestId)?.cancel(params.reason);
        }
        handler(message, extra);
      });
  }

  override get onmessage(): ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined {
    return super.onmessage;
  }

  override set onclose(handler: (() => void) | undefined) {
    super.onclose =
      handler &&
      (() => {
        for (const stream of [...this.hot.values()]) stream.close();
        handler();
      });
  }

  override get onclose(): (() => void) | undefined {
    return super.onclose;
  }
}

/**
 * The SSE stream of one hot call, written as the SDK transport writes a POST's stream: the head,
 * a priming event (clients of 2025-11-25 on), then each message as an event whose id comes from
 * the session's event store, keep-alive comments while it waits; the answer ends it. A call
 * answered within HEAD_DELAY_MS is one write with a content length (the SDK transport, through
 * Hono, sends a stream done within a tick that way too); a longer one gets its head and priming
 * event then, or with the first message relayed to it. A client that lost the stream resumes it
 * (SessionTransport.resumeHotStream); the events it missed, the answer included, are in the store.
 */
export class HotStream {
  readonly streamId = randomUUID();
  /** Aborted by the client's cancellation or the session's end; the call is then answered no more. */
  readonly signal: AbortSignal;
  private readonly abort = new AbortController();
  private response?: ServerResponse;
  private headWritten = false;
  /** The priming event, until the head is written. */
  private unwritten = '';
  /** The head's delay, then the keep-alive interval. */
  private timer?: NodeJS.Timeout;
  private done = false;

  constructor(
    private readonly events: BoundedEventStore,
    private readonly sessionId: string,
    private readonly priming: boolean,
    private readonly forget: () => void,
  ) {
    this.signal = this.abort.signal;
  }

  get attached(): boolean {
    return this.response !== undefined;
  }

  /** Makes `response` the stream's connection: a new POST's (lastEventId undefined) or a resumed GET's. */
  attach(response: ServerResponse, lastEventId: string | undefined): void {
    this.response = response;
    this.headWritten = false;
    response.once('close', () => this.detach(response));
    if (lastEventId === undefined) {
      if (this.priming) this.unwritten = `id: ${this.events.prime(this.streamId)}\ndata: \n\n`;
      this.timer = setTimeout(() => this.writeHead(), HEAD_DELAY_MS);
      this.timer.unref();
      return;
    }
    for (const [eventId, data] of this.events.eventsAfter(this.streamId, lastEventId)) this.unwritten += frame(eventId, data);
    this.writeHead();
  }

  /** A message related to the call, stored and written at once. */
  write(message: JSONRPCMessage): void {
    const text = this.store(message);
    if (!this.response || this.response.writableEnded) return;
    this.writeHead();
    this.response.write(text);
  }

  /** The call's answer: stored, written, and the stream ended (unless the call was cancelled). */
  answer(message: JSONRPCMessage): void {
    if (this.done || this.signal.aborted) return;
    const text = this.store(message);
    const response = this.response;
    const headWritten = this.headWritten;
    const body = this.unwritten + text;
    this.finish();
    if (!response || response.writableEnded) return;
    if (headWritten) return void response.end(text);
    response.writeHead(200, { ...sseHeaders(this.sessionId), 'content-length': Buffer.byteLength(body) }).end(body);
  }

  /** The client cancelled the call: no answer; the stream stays open, as the SDK leaves it, until the client goes. */
  cancel(reason: string | undefined): void {
    if (this.done) return;
    this.abort.abort(reason);
    if (!this.response) this.finish();
  }

  /** The session ended: the call is aborted and its stream ended. */
  close(): void {
    this.abort.abort();
    const response = this.response;
    this.finish();
    if (response && !response.writableEnded) response.end();
  }

  /** The message kept for resumption, as the event written. */
  private store(message: JSONRPCMessage): string {
    const data = JSON.stringify(message);
    return frame(this.events.storeData(this.streamId, data), data);
  }

  private writeHead(): void {
    const response = this.response;
    if (!response || this.headWritten) return;
    this.headWritten = true;
    clearTimeout(this.timer);
    response.writeHead(200, sseHeaders(this.sessionId));
    if (this.unwritten) response.write(this.unwritten);
    else response.flushHeaders();
    this.unwritten = '';
    this.timer = setInterval(() => this.response?.write(KEEP_ALIVE), DEFAULT_SSE_KEEP_ALIVE_MS);
    this.timer.unref();
  }

  private detach(response: ServerResponse): void {
    if (this.response !== response) return;
    this.response = undefined;
    this.unwritten = '';
    clearTimeout(this.timer);
    if (this.signal.aborted) this.finish();
  }

  private finish(): void {
    this.done = true;
    this.response = undefined;
    this.unwritten = '';
    clearTimeout(this.timer);
    this.forget();
  }
}

function frame(eventId: string, data: string): string {
  return `event: message\nid: ${eventId}\ndata: ${data}\n\n`;
}

function sseHeaders(sessionId: string): OutgoingHttpHeaders {
  return {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'mcp-session-id': sessionId,
  };
}
