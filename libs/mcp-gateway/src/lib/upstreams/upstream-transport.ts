import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The closed set of ways the gateway reaches an upstream: Streamable HTTP and SSE of the versions
 * opened with `initialize`, and the 2026-07-28 revision, found by `server/discover` before any
 * request and stateless from then on. A new kind is a new transport declaring its traits.
 */
export type UpstreamKind = 'streamable-http' | 'sse' | 'discover-first';

/** What a kind of transport can do: the pool and the links decide by these, never by its class. */
export interface UpstreamTraits {
  /** `call()` sends one request outside the SDK Protocol and hands that call alone what the upstream sends on its stream. */
  ownCallStreams: boolean;
  /** A call that wants no progress goes through `call()` even when no one waits for its stream: it skips the SDK Protocol's bookkeeping. */
  directCallsWithoutProgress: boolean;
  /** `call()` can carry headers of that call only (per-call upstream headers such as the repository token). */
  perCallHeaders: boolean;
  /** Its log messages during a call come on the call's own stream unasked, so a caller without a session gets them. */
  logsPerCall: boolean;
  /** Its requests keep the 2026-07-28 envelope in `_meta` (an upstream of the `initialize` versions takes none). */
  takesEnvelope: boolean;
  /** The session lives and dies with one event stream: an error on it ends the session. */
  sessionIsStream: boolean;
}

/** A JSON-RPC answer as the upstream sent it: the result is not validated here. */
export type RawResponse = { id: RequestId; result: unknown } | { id: RequestId; error: { code: number; message: string; data?: unknown } };

export interface RawCallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Headers of this call only (per-call upstream headers, resolved for it); never kept. */
  headers?: Readonly<Record<string, string>>;
  /**
   * The notifications the upstream sends on this call's own stream (its log messages, progress),
   * which belong to this call and no other, even on a session shared by many callers. Progress
   * restarts the timeout.
   */
  onnotification?: (notification: { method: string; params?: Record<string, unknown> }) => void;
}

/** One upstream transport: an SDK client transport that says what kind it is and what it can do. */
export interface UpstreamTransport extends Transport {
  readonly kind: UpstreamKind;
  readonly traits: UpstreamTraits;
  /** The protocol version fixed when the upstream was found (discover-first); otherwise `initialize` agrees one. */
  readonly discoveredVersion?: string;
  /** One request outside the SDK Protocol, its answer raw; present exactly when `traits.ownCallStreams`. */
  call?(method: string, params: unknown, options: RawCallOptions): Promise<RawResponse>;
  /** Tells the upstream the session is over, so it frees it now rather than at its timeout; nothing where there is none to end. */
  endSession(): Promise<void>;
}

/**
 * How a call goes up: on a call of its own outside the SDK Protocol (`direct`), as the SDK
 * client's request (`protocol`), or not at all (`refused`: per-call headers, which only a direct
 * call carries, on a transport that cannot or with progress asked for).
 */
export function callRoute(traits: UpstreamTraits, call: { progress: boolean; ownStream: boolean; callHeaders: boolean }): 'direct' | 'protocol' | 'refused' {
  if (call.callHeaders) return traits.ownCallStreams && traits.perCallHeaders && !call.progress ? 'direct' : 'refused';
  if (!traits.ownCallStreams) return 'protocol';
  return call.ownStream || (!call.progress && traits.directCallsWithoutProgress) ? 'direct' : 'protocol';
}

/** A transport whose calls can go outside the SDK Protocol. */
export type DirectCallTransport = UpstreamTransport & Required<Pick<UpstreamTransport, 'call'>>;

export function callsDirectly(transport: UpstreamTransport): transport is DirectCallTransport {
  return transport.traits.ownCallStreams && transport.call !== undefined;
}
