import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher, errors } from 'undici';
import { ProviderError } from './provider-error';
import { UpstreamBody } from './upstream-body';

// One keep-alive pool per upstream origin for every provider: a fresh TCP (and TLS) connection per
// call is the largest avoidable cost of a proxy. undici rather than `http.request`: its client
// costs about half the CPU per call (no ClientRequest/IncomingMessage objects, llhttp without the
// per-header callbacks), which is most of what a gateway adds on top of the bare proxy.
// Requests go through its lowest layer, `dispatch`, with a handler of ours: no Readable, promise
// and abort bookkeeping of `request()` per call (about a third less of the client's CPU).
// Timeouts are per request (below); the agent's own are off.
const pool = new Agent({ connections: 256, keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 });

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 600_000;

export interface UpstreamRequest {
  url: URL;
  /** GET and POST for model calls; pass-through endpoints forward any method. */
  method: string;
  headers: Record<string, string>;
  /**
   * The body whole; the client's request streamed on as it arrives (pass-through endpoints); or
   * (an upload) made anew for each send, streamed as it is read: a stale connection's resend gets a fresh one.
   */
  body?: Buffer | NodeJS.ReadableStream | (() => AsyncIterable<Uint8Array>);
  signal: AbortSignal;
  /** How long to wait for the answer's headers, and at most between two chunks of its body. */
  timeoutMs: number;
}

/** An upstream's answer whose body has not been read yet. */
export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

/**
 * Sends one request through the pool and resolves when the answer's headers arrive (any status).
 * Rejects with ProviderError 408 when no answer comes within the timeout, 502 when the upstream
 * cannot be reached, and with the signal's reason when the caller aborted. A body that stalls for
 * longer than the timeout between two chunks is destroyed with the 408.
 *
 * A pooled connection the upstream closed just as it was reused (its keep-alive timeout ran out
 * while the request was on its way) fails before any answer: that request is sent once more on a
 * fresh connection (see isStaleConnection).
 */
export async function sendUpstream(request: UpstreamRequest): Promise<UpstreamResponse> {
  try {
    return await sendOnce(request);
  } catch (error) {
    // A streamed body is read once: it cannot be sent again.
    const resendable = request.body === undefined || Buffer.isBuffer(request.body) || typeof request.body === 'function';
    if (!isStaleConnection(error) || request.signal.aborted || !resendable) throw failure(error, request);
    try {
      return await sendOnce(request);
    } catch (again) {
      throw failure(again, request);
    }
  }
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

function sendOnce(request: UpstreamRequest): Promise<UpstreamResponse> {
  const target = requestTarget(request.url);
  // Headers as a flat list go to the wire as they are.
  const headers: string[] = [];
  for (const name in request.headers) headers.push(name, request.headers[name] as string);
  if (target.basicAuth && !('authorization' in request.headers)) headers.push('authorization', target.basicAuth);
  return new Promise((resolve, reject) => {
    if (request.signal.aborted) return reject(request.signal.reason);
    pool.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: request.method as Dispatcher.HttpMethod,
        headers,
        body: typeof request.body === 'function' ? Readable.from(request.body(), { objectMode: false }) : ((request.body as Buffer | Readable | undefined) ?? null),
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      },
      new UpstreamCall(request.signal, resolve, reject),
    );
  });
}

/**
 * One request's handler: resolves with status and headers when they arrive, then feeds the body;
 * the caller's signal aborts the request at any point, and stops being listened to at its end.
 */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private body: UpstreamBody | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly onAbort = () => this.controller?.abort(this.signal.reason instanceof Error ? this.signal.reason : new Error(String(this.signal.reason)));

  constructor(
    private readonly signal: AbortSignal,
    private readonly resolve: (response: UpstreamResponse) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal.aborted) this.onAbort();
    else this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    this.body = new UpstreamBody(controller);
    this.resolve({ statusCode, headers, body: this.body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.signal.removeEventListener('abort', this.onAbort);
    const reason = this.signal.aborted ? (this.signal.reason as Error) : error;
    if (this.body) this.body.fail(reason);
    else this.reject(reason);
  }
}

const STALE_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * The connection closed under the request before any answer: on a pooled connection, the
 * upstream's keep-alive ran out as the request went out. Sent once more, as the official SDKs
 * retry connection errors; an upstream that keeps failing so gets a 502.
 */
function isStaleConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STALE_CODES.has(code);
}

function failure(error: unknown, request: UpstreamRequest): unknown {
  if (request.signal.aborted) return request.signal.reason ?? error;
  if (error instanceof ProviderError) return error;
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) return timedOut(request.timeoutMs);
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(502, 'api_connection_error', `The upstream could not be reached: ${message}`, 'upstream_unreachable');
}

/**
 * Why an answer's body broke off, for the error event that ends a stream: the upstream going
 * silent for longer than the timeout (408), else the connection closing early (502).
 */
export function answerBrokeOff(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof errors.BodyTimeoutError) {
    return new ProviderError(408, 'timeout', 'The upstream stopped sending its answer for longer than the timeout.', 'timeout');
  }
  return new ProviderError(502, 'api_connection_error', 'The upstream connection closed before the answer was complete.', 'upstream_disconnected');
}

function timedOut(timeoutMs: number): ProviderError {
  return new ProviderError(408, 'timeout', `The upstream did not answer within ${timeoutMs} ms.`, 'timeout');
}

/**
 * Reads a whole answer body; more than `limit` bytes is a 502 rather than unbounded memory, and a
 * body that breaks off rejects. A Node stream is read through its events (no async iterator and
 * promise per chunk: this runs once per call).
 */
export function readAll(body: AsyncIterable<Buffer | string>, limit: number): Promise<Buffer> {
  if (body instanceof UpstreamBody) return body.all(limit, () => tooLarge(limit));
  if (body instanceof Readable) return readStream(body, limit);
  return readIterable(body, limit);
}

function tooLarge(limit: number): ProviderError {
  return new ProviderError(502, 'api_error', `The upstream answer exceeds ${limit} bytes.`, 'upstream_answer_too_large');
}

function readStream(body: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: unknown) => {
      body.off('data', onData);
      reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > limit) {
        fail(tooLarge(limit));
        body.destroy();
        return;
      }
      chunks.push(bytes);
    };
    body.on('data', onData);
    // 'close' without 'end': the answer broke off (an aborted IncomingMessage emits 'aborted'/'error' or just closes).
    body.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    body.once('error', fail);
    body.once('close', () => {
      if (!body.readableEnded) fail(new Error('The answer ended before it was complete.'));
    });
  });
}

async function readIterable(body: AsyncIterable<Buffer | string>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(bytes);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** Reads a (small) answer body completely, up to `limit` bytes (an error body, say). */
export async function readBody(response: AsyncIterable<Buffer | string>, limit = 1_048_576): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) break;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
