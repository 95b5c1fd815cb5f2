/** One item an upstream offers, as it names it. */
export interface CatalogueItem {
  upstream: string;
  kind: 'tool' | 'resource' | 'resource-template' | 'prompt';
  /** Tool or prompt name; resource URI; resource template URI template. */
  name: string;
  description?: string;
  /** A tool whose annotations say `destructiveHint: true` (it needs the operator role unless its server names it). */
  destructive?: boolean;
}

/** An upstream's reachability, from the runtime's periodic pings. */
export interface UpstreamHealth {
  upstream: string;
  state: 'up' | 'down' | 'connecting';
  /** ISO time of the last successful ping or call. */
  lastSeenAt?: string;
  /** Why it is down (never contains secrets). */
  lastError?: string;
  /** The MCP version spoken with it: 2026-07-28 when it answers server/discover, else what initialize agreed. */
  protocolVersion?: string;
}

/**
 * What the runtime knows of the upstreams right now (catalogues refreshed on list_changed, health
 * from pings), for the admin API (`/api/v1/tools`, upstream health). Implemented by the runtime.
 */
export abstract class UpstreamCatalogue {
  abstract items(upstream?: string): readonly CatalogueItem[];
  abstract health(upstream?: string): readonly UpstreamHealth[];
}
