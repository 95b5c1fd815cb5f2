import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { isUpstreamBodyTimeout, isUpstreamTimeout, UpstreamBody, UpstreamClient } from '@arbor/platform';
import { ProviderError } from './provider-error';

// One keep-alive pool per upstream origin for every provider (the suite's upstream client): a
// fresh TCP (and TLS) connection per call is the largest avoidable cost of a proxy.
const client = new UpstreamClient();

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
 * longer than the timeout between two chunks is destroyed with the 408. A pooled connection that
 * went stale as it was reused is retried once on a fresh one (UpstreamClient).
 */
export async function sendUpstream(request: UpstreamRequest): Promise<UpstreamResponse> {
  try {
    return await client.send(request);
  } catch (error) {
    throw failure(error, request);
  }
}

function failure(error: unknown, request: UpstreamRequest): unknown {
  if (request.signal.aborted) return request.signal.reason ?? error;
  if (error instanceof ProviderError) return error;
  if (isUpstreamTimeout(error)) return timedOut(request.timeoutMs);
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(502, 'api_connection_error', `The upstream could not be reached: ${message}`, 'upstream_unreachable');
}

/**
 * Why an answer's body broke off, for the error event that ends a stream: the upstream going
 * silent for longer than the timeout (408), else the connection closing early (502).
 */
export function answerBrokeOff(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (isUpstreamBodyTimeout(error)) {
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
