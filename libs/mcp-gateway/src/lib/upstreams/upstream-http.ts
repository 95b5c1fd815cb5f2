import { type UpstreamBody, UpstreamClient } from '@arbor/platform';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedLookup } from '../registry/upstream-url-guard';

// What the HTTP upstream transports (Streamable HTTP, discover-first) share: the suite's upstream client.

/** A JSON answer from a tool server larger than this is refused rather than held in memory. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const CLIENTS = new Map<boolean, UpstreamClient>();

/**
 * Keep-alive pools shared by every upstream session (a call reuses a warm connection), one per
 * address rule: each new connection's address passes the upstream guard when it is opened. No
 * limit of connections per upstream: each stateful session's event stream holds one.
 */
export function upstreamClientFor(allowLinkLocal: boolean): UpstreamClient {
  let client = CLIENTS.get(allowLinkLocal);
  if (!client) {
    client = new UpstreamClient({ lookup: guardedLookup(allowLinkLocal), connections: null });
    CLIENTS.set(allowLinkLocal, client);
  }
  return client;
}

/** The upstream could not be reached or dropped the connection (no HTTP answer to go by). */
export class UpstreamConnectionError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'UpstreamConnectionError';
  }
}

/** An answer's whole body as UTF-8 text. */
export async function readText(body: UpstreamBody): Promise<string> {
  const bytes = await body.all(MAX_ANSWER_BYTES, () => new Error(`The upstream's answer exceeds ${MAX_ANSWER_BYTES} bytes`));
  return bytes.toString('utf8');
}

/** Reads and drops the rest of an answer, so that its connection goes back to the pool. */
export function drain(body: UpstreamBody): void {
  body.all(MAX_ANSWER_BYTES, () => new Error('drained')).catch(() => undefined);
}

/** `text/event-stream` of `text/event-stream; charset=utf-8`, lower-cased. */
export function mediaType(contentType: string | string[] | undefined): string | undefined {
  return (Array.isArray(contentType) ? contentType[0] : contentType)?.split(';', 1)[0]?.trim().toLowerCase();
}

const GUARDED_DISPATCHERS = new Map<boolean, Agent>();

/** fetch on connections whose addresses pass the guard when they are opened (SSE upstreams, A2A agents). */
export function guardedFetch(allowLinkLocal: boolean): typeof fetch {
  let dispatcher = GUARDED_DISPATCHERS.get(allowLinkLocal);
  if (!dispatcher) {
    dispatcher = new Agent({ connect: { lookup: guardedLookup(allowLinkLocal) } });
    GUARDED_DISPATCHERS.set(allowLinkLocal, dispatcher);
  }
  const via = dispatcher;
  return (url, init) => undiciFetch(url as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: via }) as unknown as Promise<Response>;
}
