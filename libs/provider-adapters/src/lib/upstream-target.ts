import type { PassThroughResources } from './pass-through-resources';
import type { ProviderDeployment } from './provider-deployment';

/** Where a request or socket of one deployment goes, with the provider's own credentials. */
export interface UpstreamTarget {
  url: URL;
  /** The provider's key (and what else it requires), in its own header. */
  headers: Record<string, string>;
}

/**
 * The vendor's whole HTTP API, 1:1 under the gateway path `/<route>` (`/openai/v1/conversations`
 * → `https://api.openai.com/v1/conversations`): the request and answer pass untouched but for the
 * key, which the gateway swaps for the deployment's; of the caller's headers only those of
 * passThroughHeaders' allow-list go along.
 */
export interface PassThroughApi {
  /** The gateway path prefix, without slashes (`openai`). */
  readonly route: string;
  /**
   * The upstream URL of `path` (from the vendor's root: `/v1/files`, as the client encoded it) and
   * `search` (`?limit=2`, or ''), built with passThroughUrl: a path that would leave the root is refused.
   */
  target(deployment: ProviderDeployment, path: string, search: string): UpstreamTarget;
  /** Where a finished batch's results are read (JSON lines, one answer each, with its usage), priced at the adapter's `batchPriceFactor`. */
  readonly batchResults?: { readonly path: RegExp };
  /** The objects the vendor keeps for its caller, which the gateway keeps each project to its own of. */
  readonly resources: PassThroughResources;
  /**
   * Paths of the vendor's API (below its root, with everything below them) that the gateway also
   * serves at its own root, as it serves them under `/<route>` (Anthropic's Skills API at
   * `/v1/skills`, which no other family has), with the request headers sent when the client sent
   * none of its own (the API version).
   */
  readonly rootRoutes?: { readonly paths: readonly string[]; readonly defaultHeaders?: Readonly<Record<string, string>> };
}

/** A realtime model's WebSocket at the provider (OpenAI's `/v1/realtime`, Azure OpenAI's `/openai/realtime`). */
export interface RealtimeApi {
  target(deployment: ProviderDeployment): UpstreamTarget;
}

/** `https://host/v1` → `https://host` (the vendor's root, to which a pass-through path is added). */
export function rootOf(apiBase: string, suffix = /\/v1$/): string {
  return apiBase.replace(/\/+$/, '').replace(suffix, '');
}

/** An http(s) URL as the ws(s) URL of the same place. */
export function asWebSocketUrl(url: URL): URL {
  const socket = new URL(url);
  socket.protocol = url.protocol === 'http:' ? 'ws:' : url.protocol === 'https:' ? 'wss:' : url.protocol;
  return socket;
}

/** The provider's key in its header (`authorization` as a bearer token), or no header without a key. */
export function keyHeaders(header: 'bearer' | string, apiKey: string | undefined): Record<string, string> {
  if (!apiKey) return {};
  return header === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { [header]: apiKey };
}
