import { setMaxListeners } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import type { UpstreamAnswer, UpstreamBody, UpstreamClient } from '@arbor/platform';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessage, McpError, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { sessionHeaders } from './per-call-headers';
import { drain, mediaType, readText, UpstreamConnectionError, upstreamClientFor } from './upstream-http';
import type { RawCallOptions, RawResponse, UpstreamTraits, UpstreamTransport } from './upstream-transport';

const TRAITS: UpstreamTraits = {
  ownCallStreams: true,
  directCallsWithoutProgress: true,
  perCallHeaders: true,
  logsPerCall: true,
  takesEnvelope: false,
  sessionIsStream: false,
};

/** Ids of raw calls; the SDK Protocol numbers its own. */
const CALL_ID_PREFIX = 'arbor-';
/** Same-origin 307/308 redirects followed per request (fetch allows 20; an MCP endpoint moving needs one). */
const MAX_REDIRECTS = 5;
/** As the SDK's client: how often, and how patiently, a dropped stream is resumed. */
const RECONNECTION = { initialDelayMs: 1000, maxDelayMs: 30_000, growFactor: 1.5, maxRetries: 2 };

interface StreamState {
  /** Resumed streams answer the request whose POST stream dropped under its original id. */
  lastEventId?: string;
  /** The raw call whose POST this stream answers. */
  callId?: RequestId;
}

interface PendingCall {
  resolve(response: RawResponse): void;
  reject(error: unknown): void;
  notified?(notification: { method: string; params?: Record<string, unknown> }): void;
}

type Headers = Record<string, string>;

/**
 * The client side of Streamable HTTP toward an upstream, on the suite's upstream client (undici).
 * Does what the SDK's StreamableHTTPClientTransport does for the gateway (POST answered as JSON
 * or SSE, the GET stream when the upstream offers one, resumption with Last-Event-ID, DELETE to
 * end the session, the registry's headers on every request) without the web streams and fetch
 * machinery that made the upstream call the largest cost of a gateway call. `call()` sends a
 * request outside the SDK Protocol for the hot path: its answer comes back raw.
 */
export class StreamableHttpUpstreamTransport implements UpstreamTransport {
  readonly kind = 'streamable-http';
  readonly traits = TRAITS;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  sessionId?: string;

  private readonly url: URL;
  private readonly extraHeaders: Readonly<Record<string, string>>;
  private readonly client: UpstreamClient;
  /** Aborted on close: every request still open (an event stream, a call's answer) ends with it. */
  private readonly lifetime = new AbortController();
  private protocolVersion?: string;
  private headers?: Headers;
  private readonly pending = new Map<RequestId, PendingCall>();
  private reconnectTimer?: NodeJS.Timeout;
  private serverRetryMs?: number;
  private nextCallId = 0;
  private delivered = Promise.resolve();
  private started = false;
  private closed = false;

  constructor(url: URL, headers: Readonly<Record<string, string>> = {}, allowLinkLocal = false) {
    this.url = url;
    // Lower-cased, so that a registry header replaces the transport's own rather than doubling it.
    // Per-call headers ({{project.repository_token}}) are not the session's: call() adds them resolved.
    this.extraHeaders = Object.fromEntries(Object.entries(sessionHeaders(headers)).map(([name, value]) => [name.toLowerCase(), value]));
    this.client = upstreamClientFor(allowLinkLocal);
    // Every request of the session listens to it: many calls at once are no leak.
    setMaxListeners(0, this.lifetime.signal);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StreamableHttpUpstreamTransport already started');
    this.started = true;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.headers = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.lifetime.abort(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    if (this.pending.size > 0) {
      const gone = new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
      for (const call of this.pending.values()) call.reject(gone);
      this.pending.clear();
    }
    this.onclose?.();
  }

  async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    try {
      if (options?.resumptionToken) {
        this.openStream(options.resumptionToken).catch((error) => this.onerror?.(error));
        return;
      }
      await this.post(message);
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  /**
   * One request outside the SDK Protocol: its answer is returned raw, what the upstream sends
   * meanwhile (notifications, its own requests) still reaches `onmessage`. A timeout or the
   * caller's abort tells the upstream with notifications/cancelled, as the Protocol would.
   */
  call(method: string, params: unknown, { signal, timeoutMs, headers, onnotification }: RawCallOptions): Promise<RawResponse> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    const id = `${CALL_ID_PREFIX}${++this.nextCallId}`;
    return new Promise<RawResponse>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const giveUp = (reason: string, error: unknown) => {
        finish();
        reject(error);
        this.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }).catch(() => undefined);
      };
      const expire = () => giveUp('Request timed out', new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
      let timer = setTimeout(expire, timeoutMs);
      const onAbort = () => giveUp(String(signal?.reason), signal?.reason);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (response) => {
          finish();
          resolve(response);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
        ...(onnotification
          ? {
              notified: (notification) => {
                if (notification.method === 'notifications/progress') {
                  clearTimeout(timer);
                  timer = setTimeout(expire, timeoutMs);
                }
                onnotification(notification);
              },
            }
          : {}),
      });
      this.post({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) } as JSONRPCMessage, headers).catch((error) => this.pending.get(id)?.reject(error));
    });
  }

  endSession(): Promise<void> {
    return this.terminateSession();
  }

  /** DELETE: the upstream may free the session now; 405 means it does not let clients end sessions. */
  async terminateSession(): Promise<void> {
    if (!this.sessionId) return;
    const { statusCode: status } = await this.exchange('DELETE', this.commonHeaders(), undefined, true);
    if (status >= 300 && status !== 405) throw new StreamableHTTPError(status, 'Failed to terminate session');
    this.sessionId = undefined;
    this.headers = undefined;
  }

  private async post(message: JSONRPCMessage | JSONRPCMessage[], callHeaders?: Readonly<Record<string, string>>): Promise<void> {
    const body = JSON.stringify(message);
    const headers = callHeaders ? { ...this.postHeaders(), ...callHeaders } : this.postHeaders();
    const answer = await this.exchange('POST', headers, body, false);
    const status = answer.statusCode;
    const sessionId = answer.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && sessionId !== this.sessionId) {
      this.sessionId = sessionId;
      this.headers = undefined;
    }
    if (status < 200 || status >= 300) {
      throw new StreamableHTTPError(status, `Error POSTing to endpoint: ${await readText(answer.body)}`);
    }
    if (status === 202) {
      drain(answer.body);
      // The upstream may offer a stream of its own messages once the session is initialized.
      if (!Array.isArray(message) && 'method' in message && message.method === 'notifications/initialized') {
        this.openStream(undefined).catch((error) => this.onerror?.(error));
      }
      return;
    }
    const messages = Array.isArray(message) ? message : [message];
    if (!messages.some((m) => 'method' in m && 'id' in m && m.id !== undefined)) return drain(answer.body);
    const type = mediaType(answer.headers['content-type']);
    if (type === 'text/event-stream') {
      const only = Array.isArray(message) ? undefined : (message as { id?: RequestId }).id;
      return this.readStream(answer.body, only !== undefined && this.pending.has(only) ? { callId: only } : {}, false);
    }
    if (type === 'application/json') {
      const data = JSON.parse(await readText(answer.body)) as unknown;
      for (const item of Array.isArray(data) ? data : [data]) this.deliver(item);
      return;
    }
    drain(answer.body);
    throw new StreamableHTTPError(-1, `Unexpected content type: ${String(answer.headers['content-type'])}`);
  }

  /** The GET stream: new (resumptionToken undefined) or resumed after a dropped stream. */
  private async openStream(resumptionToken: string | undefined): Promise<void> {
    if (this.closed) return;
    const headers: Headers = { ...this.commonHeaders(), accept: 'text/event-stream' };
    if (resumptionToken) headers['last-event-id'] = resumptionToken;
    const answer = await this.exchange('GET', headers, undefined, false);
    const status = answer.statusCode;
    if (status === 405) return drain(answer.body);
    if (status < 200 || status >= 300) {
      drain(answer.body);
      throw new StreamableHTTPError(status, `Failed to open SSE stream: ${answer.statusText}`);
    }
    this.readStream(answer.body, { lastEventId: resumptionToken }, true);
  }

  /**
   * Reads an SSE answer, handing each message on. A stream that ends before its answer is resumed
   * with Last-Event-ID when it can be: the GET stream, or a POST stream that sent an event id.
   */
  private readStream(body: UpstreamBody, state: StreamState, reconnectable: boolean): void {
    let resumable = reconnectable;
    let answered = false;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id) {
          state.lastEventId = event.id;
          resumable = true;
        }
        if (!event.data || (event.event && event.event !== 'message')) return;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch (error) {
          return this.onerror?.(error as Error);
        }
        if (isResponse(message)) answered = true;
        this.deliver(message, state.callId);
      },
      onRetry: (ms) => (this.serverRetryMs = ms),
    });
    let ended = false;
    const end = (error?: unknown) => {
      if (ended) return;
      ended = true;
      if (error !== undefined) this.onerror?.(new Error(`SSE stream disconnected: ${String(error)}`));
      if (resumable && !answered && !this.closed) this.scheduleReconnection(state.lastEventId, 0);
    };
    void (async () => {
      const decoder = new StringDecoder('utf8');
      try {
        for await (const chunk of body) parser.feed(decoder.write(chunk));
        end();
      } catch (error) {
        end(error);
      }
    })();
  }

  private scheduleReconnection(lastEventId: string | undefined, attempt: number): void {
    if (attempt >= RECONNECTION.maxRetries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${RECONNECTION.maxRetries}) exceeded.`));
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(RECONNECTION.initialDelayMs * RECONNECTION.growFactor ** attempt, RECONNECTION.maxDelayMs);
    this.reconnectTimer = setTimeout(() => {
      this.openStream(lastEventId).catch((error) => {
        this.onerror?.(new Error(`Failed to reconnect SSE stream: ${error instanceof Error ? error.message : String(error)}`));
        this.scheduleReconnection(lastEventId, attempt + 1);
      });
    }, delay);
    this.reconnectTimer.unref();
  }

  /**
   * Hands messages on one microtask apart, in order: the SDK Protocol handles a notification a
   * microtask after it arrives and forgets a request's progress handler as soon as its answer
   * does, so progress sent just before the answer would otherwise be dropped.
   */
  private deliver(message: unknown, callId?: RequestId): void {
    this.delivered = this.delivered.then(() => {
      try {
        this.dispatch(message, callId);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    });
  }

  /**
   * A message from the upstream: the answer to a raw call, and the notifications on its stream when
   * it listens for them, go to its caller; the rest to the SDK.
   */
  private dispatch(message: unknown, callId?: RequestId): void {
    if (!isMessage(message)) return void this.onerror?.(new Error('Invalid JSON-RPC message from the upstream'));
    const listener = callId === undefined ? undefined : this.pending.get(callId)?.notified;
    if (listener && isNotification(message)) return listener(message);
    if (isResponse(message)) {
      const call = this.pending.get(message.id);
      if (call) return call.resolve(message);
      // The late answer to a raw call given up on: the SDK never knew that id.
      if (typeof message.id === 'string' && message.id.startsWith(CALL_ID_PREFIX)) return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  /**
   * One HTTP request; resolves with the answer as soon as its head arrives (a keep-alive
   * connection the upstream closed just before it was reused is retried by the upstream client).
   * A 307 or 308 to the same origin is followed with the same method, headers and body, as fetch
   * followed it for the SDK's transport. Other redirects are answered as they come (an error):
   * fetch would turn a POST into a body-less GET on 301, 302 and 303, which cannot carry a
   * JSON-RPC message, and another origin must not get the registry's headers (credentials) nor
   * escape the registry's URL checks.
   */
  private async exchange(method: string, headers: Headers, body: string | undefined, drainBody: boolean): Promise<UpstreamAnswer> {
    let url = this.url;
    for (let redirects = 0; ; redirects++) {
      if (this.closed) throw new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
      let answer: UpstreamAnswer;
      try {
        answer = await this.client.send({ url, method, headers, ...(body !== undefined ? { body } : {}), signal: this.lifetime.signal, timeoutMs: 0 });
      } catch (error) {
        throw this.closed ? new McpError(ErrorCode.ConnectionClosed, 'Connection closed') : new UpstreamConnectionError(`${method} to the upstream failed`, { cause: error });
      }
      const status = answer.statusCode;
      const target = status === 307 || status === 308 ? sameOriginTarget(url, firstValue(answer.headers['location'])) : undefined;
      if (target && redirects < MAX_REDIRECTS && !this.closed) {
        drain(answer.body);
        url = target;
        continue;
      }
      if (drainBody) drain(answer.body);
      return answer;
    }
  }

  private commonHeaders(): Headers {
    return {
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...this.extraHeaders,
    };
  }

  private postHeaders(): Headers {
    this.headers ??= { ...this.commonHeaders(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    return this.headers;
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Where a redirect points, when that is on the same origin as `from`. */
function sameOriginTarget(from: URL, location: string | undefined): URL | undefined {
  if (!location) return undefined;
  try {
    const target = new URL(location, from);
    return target.origin === from.origin ? target : undefined;
  } catch {
    return undefined;
  }
}

function isMessage(value: unknown): value is { jsonrpc: '2.0' } {
  return typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

function isNotification(value: { jsonrpc: '2.0' }): value is { jsonrpc: '2.0'; method: string; params?: Record<string, unknown> } {
  return typeof (value as { method?: unknown }).method === 'string' && !('id' in value);
}

function isResponse(value: unknown): value is RawResponse {
  if (!isMessage(value) || 'method' in value) return false;
  const id = (value as { id?: unknown }).id;
  return (typeof id === 'string' || typeof id === 'number') && ('result' in value || 'error' in value);
}
