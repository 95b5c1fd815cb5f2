import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { ProviderError } from './provider-error';

// One keep-alive pool per protocol for every provider: a fresh TCP (and TLS) connection per call
// is the largest avoidable cost of a proxy.
const POOL_OPTIONS = { keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo' } as const;
const httpAgent = new http.Agent(POOL_OPTIONS);
const httpsAgent = new https.Agent(POOL_OPTIONS);

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 600_000;

export interface UpstreamRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer;
  signal: AbortSignal;
  timeoutMs: number;
}

/**
 * Sends one request through the pool and resolves when the answer's headers arrive (any status).
 * Rejects with ProviderError 408 when no answer comes within the timeout, 502 when the upstream
 * cannot be reached, and with the signal's reason when the caller aborted.
 *
 * A pooled connection the upstream closed just as it was reused (its keep-alive timeout ran out
 * while the request was on its way) fails before any answer: that request is sent once more on a
 * fresh connection, as Node's documentation advises (`request.reusedSocket`). The upstream never
 * saw it, so nothing is done twice.
 */
export async function sendUpstream(request: UpstreamRequest): Promise<IncomingMessage> {
  try {
    return await sendOnce(request);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    return sendOnce(request);
  }
}

/** The reused connection was already closed by the upstream (reset, or closed before an answer). */
class StaleConnection extends Error {}

const STALE_CODES = new Set(['ECONNRESET', 'EPIPE']);

function sendOnce(request: UpstreamRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = request.url.protocol === 'https:' ? https : http;
    const outgoing = client.request(request.url, {
      method: request.method,
      headers: { ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) },
      agent: request.url.protocol === 'https:' ? httpsAgent : httpAgent,
      signal: request.signal,
    });
    const timer = setTimeout(() => {
      outgoing.destroy(new ProviderError(408, 'timeout', `The upstream did not answer within ${request.timeoutMs} ms.`, 'timeout'));
    }, request.timeoutMs);
    outgoing.on('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error instanceof ProviderError || request.signal.aborted) reject(error);
      else if (outgoing.reusedSocket && STALE_CODES.has(error.code ?? '')) reject(new StaleConnection(error.message));
      else reject(new ProviderError(502, 'api_connection_error', `The upstream could not be reached: ${error.message}`, 'upstream_unreachable'));
    });
    outgoing.end(request.body);
  });
}

/**
 * Reads a whole answer body; more than `limit` bytes is a 502 rather than unbounded memory, and a
 * body that breaks off rejects.
 */
export async function readAll(body: AsyncIterable<Buffer | string>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) throw new ProviderError(502, 'api_error', `The upstream answer exceeds ${limit} bytes.`, 'upstream_answer_too_large');
    chunks.push(bytes);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/** Reads a (small) answer body completely, up to `limit` bytes (an error body, say). */
export async function readBody(response: IncomingMessage, limit = 1_048_576): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > limit) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
