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

/** Where a URL's requests go, worked out once per URL rather than per call. */
interface RequestTarget {
  client: typeof http | typeof https;
  agent: http.Agent;
  hostname: string;
  port: string;
  path: string;
  host: string;
  /** Credentials in the URL (`https://user:pass@host`), sent as Basic authorization as http.request would. */
  basicAuth?: string;
}

const targets = new Map<string, RequestTarget>();
const MAX_TARGETS = 1024;

function requestTarget(url: URL): RequestTarget {
  let target = targets.get(url.href);
  if (target) return target;
  const secure = url.protocol === 'https:';
  target = {
    client: secure ? https : http,
    agent: secure ? httpsAgent : httpAgent,
    // [::1] → ::1, as http.request wants it.
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    host: url.host,
    ...(url.username || url.password
      ? { basicAuth: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` }
      : {}),
  };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(url.href, target);
  return target;
}

function sendOnce(request: UpstreamRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = requestTarget(request.url);
    // Headers as a flat list go to the wire as they are: no per-header bookkeeping in ClientRequest.
    const headers: string[] = ['host', target.host];
    for (const name in request.headers) headers.push(name, request.headers[name] as string);
    if (request.body) headers.push('content-length', String(request.body.length));
    if (target.basicAuth && !('authorization' in request.headers)) headers.push('authorization', target.basicAuth);
    const outgoing = target.client.request({
      hostname: target.hostname,
      ...(target.port ? { port: target.port } : {}),
      path: target.path,
      method: request.method,
      headers,
      agent: target.agent,
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
