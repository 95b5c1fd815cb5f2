import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedLookup } from '../registry/upstream-url-guard';
import type { UpstreamTraits, UpstreamTransport } from './upstream-transport';

/** Every call goes through the SDK Protocol; the session's one event stream carries every caller's messages. */
const TRAITS: UpstreamTraits = {
  ownCallStreams: false,
  directCallsWithoutProgress: false,
  perCallHeaders: false,
  logsPerCall: false,
  takesEnvelope: false,
  sessionIsStream: true,
};

/** HTTP+SSE of 2024-11-05 toward an upstream: the SDK's client transport, on connections the address guard checks. */
export class SseUpstreamTransport extends SSEClientTransport implements UpstreamTransport {
  readonly kind = 'sse';
  readonly traits = TRAITS;

  constructor(url: URL, headers: Readonly<Record<string, string>>, allowLinkLocal: boolean) {
    super(url, { requestInit: { headers: { ...headers } }, fetch: guardedFetch(allowLinkLocal) });
  }

  async endSession(): Promise<void> {
    // The session ends with its event stream, which closing the client closes.
  }
}

const GUARDED_DISPATCHERS = new Map<boolean, Agent>();

/** fetch on connections whose addresses pass the guard when they are opened. */
export function guardedFetch(allowLinkLocal: boolean): FetchLike {
  let dispatcher = GUARDED_DISPATCHERS.get(allowLinkLocal);
  if (!dispatcher) {
    dispatcher = new Agent({ connect: { lookup: guardedLookup(allowLinkLocal) } });
    GUARDED_DISPATCHERS.set(allowLinkLocal, dispatcher);
  }
  const via = dispatcher;
  return (url, init) => undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: via }) as unknown as Promise<Response>;
}
