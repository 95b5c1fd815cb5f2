import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { guardedFetch } from './upstream-http';
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
