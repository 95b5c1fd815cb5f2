import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher, errors } from 'undici';
import { UpstreamBody } from './upstream-body';

// The suite's one HTTP client toward upstreams (model providers, tool servers): keep-alive pools
// per origin on undici, whose client costs about half the CPU of `http.request` per call (no
// ClientRequest/IncomingMessage objects, llhttp without per-header callbacks). Requests go through
// its lowest layer, `dispatch`, with a handler of ours: no Readable, promise and abort bookkeeping
// of `request()` per call. Timeouts are per request; the agent's own are off.

export interface UpstreamClientOptions {
  /** Resolves each new connection's host (an address guard: every socket's address is checked when opened). */
  lookup?: LookupFunction;
  /** Connections per origin; null for no limit (long-lived event streams hold theirs). Default 256. */
  connections?: number | null;
}

export interface UpstreamExchange {
  url: URL;
  method: string;
  /** Sent as they are (lower-case names); `authorization` is added from credentials in the URL unless given. */
  headers: Readonly<Record<string, string>>;
  /**
   * The body whole; a stream sent as it is read (sent once: not resent on a stale connection);
   * or made anew for each send, streamed as it is read.
   */
  body?: string | Buffer | NodeJS.ReadableStream | (() => AsyncIterable<Uint8Array>);
  /** Aborts the request at any point: before its answer (the promise rejects) or in its body (the body fails). */
  signal?: AbortSignal;
  /** How long to wait for the answer's headers, and at most between two chunks of its body; 0 waits for ever. */
  timeoutMs: number;
}

/** An upstream's answer whose body has not been read yet. */
export interface UpstreamAnswer {
  statusCode: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

/**
 * Keep-alive connection pools toward upstreams, with the lookup they were made with. `send`
 * resolves when an answer's headers arrive (any status) and rejects with undici's error when none
 * comes: `isUpstreamTimeout` tells a timeout, the signal's reason comes back when it aborted.
 *
 * A pooled connection the upstream closed just as it was reused (its keep-alive timeout ran out
 * while the request was on its way) fails before any answer: that request is sent once more on a
 * fresh connection, as the official SDKs retry connection errors, when its body can be sent again.
 */
export class UpstreamClient {
  private readonly agent: Agent;

  constructor(options: UpstreamClientOptions = {}) {
    this.agent = new Agent({
      connections: options.connections === undefined ? 256 : options.connections,
      keepAliveTimeout: 10_000,
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(options.lookup ? { connect: { lookup: options.lookup } } : {}),
    });
  }

  async send(request: UpstreamExchange): Promise<UpstreamAnswer> {
    try {
      return await this.sendOnce(request);
    } catch (error) {
      const resendable = request.body === undefined || typeof request.body === 'string' || Buffer.isBuffer(request.body) || typeof request.body === 'function';
      if (!isStaleConnection(error) || request.signal?.aborted || !resendable) throw error;
      return this.sendOnce(request);
    }
  }

  /** Closes the pools' connections once their requests are done. */
  close(): Promise<void> {
    return this.agent.close();
  }

  private sendOnce(request: UpstreamExchange): Promise<UpstreamAnswer> {
    const target = requestTarget(request.url);
    // Headers as a flat list go to the wire as they are.
    const headers: string[] = [];
    for (const name in request.headers) headers.push(name, request.headers[name] as string);
    if (target.basicAuth && !('authorization' in request.headers)) headers.push('authorization', target.basicAuth);
    const { signal } = request;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      this.agent.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: request.method as Dispatcher.HttpMethod,
          headers,
          body: typeof request.body === 'function' ? Readable.from(request.body(), { objectMode: false }) : ((request.body as string | Buffer | Readable | undefined) ?? null),
          headersTimeout: request.timeoutMs,
          bodyTimeout: request.timeoutMs,
        },
        new UpstreamCall(signal, resolve, reject),
      );
    });
  }
}

/** No answer's headers, or no next chunk of its body, within the request's timeout. */
export function isUpstreamTimeout(error: unknown): boolean {
  return error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError;
}

/** The body's next chunk did not come within the request's timeout (a stream gone silent). */
export function isUpstreamBodyTimeout(error: unknown): boolean {
  return error instanceof errors.BodyTimeoutError;
}

/** Where a URL's requests go, worked out once per URL rather than per call. */
interface RequestTarget {
  origin: string;
  path: string;
  /** Credentials in the URL (`https://user:pass@host`), sent as Basic authorization as fetch would not. */
  basicAuth?: string;
}

const targets = new Map<string, RequestTarget>();
const MAX_TARGETS = 1024;

function requestTarget(url: URL): RequestTarget {
  let target = targets.get(url.href);
  if (target) return target;
  target = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    ...(url.username || url.password ? { basicAuth: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` } : {}),
  };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(url.href, target);
  return target;
}

/**
 * One request's handler: resolves with status and headers when they arrive, then feeds the body;
 * the caller's signal aborts the request at any point, and stops being listened to at its end.
 */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private body: UpstreamBody | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly onAbort = () => {
    const reason: unknown = this.signal?.reason;
    this.controller?.abort(reason instanceof Error ? reason : new Error(String(reason)));
  };

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (answer: UpstreamAnswer) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (!this.signal) return;
    if (this.signal.aborted) this.onAbort();
    else this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusText: string): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    this.body = new UpstreamBody(controller);
    this.resolve({ statusCode, statusText, headers, body: this.body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    const reason = this.signal?.aborted ? (this.signal.reason as Error) : error;
    if (this.body) this.body.fail(reason);
    else this.reject(reason);
  }
}

const STALE_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** The connection closed under the request before any answer: on a pooled connection, the upstream's keep-alive ran out as the request went out. */
function isStaleConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STALE_CODES.has(code);
}
