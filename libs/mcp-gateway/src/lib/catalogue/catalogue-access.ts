import type { McpAccessGrant } from '../access/mcp-access';
import type { CatalogueItem } from '../registry/upstream-catalogue';

/** Who reads a catalogue: what an access policy decides by. */
export interface CatalogueCaller {
  /** The virtual server, or null for `/mcp` (every server of the grant, names prefixed). */
  serverId: string | null;
  grant: McpAccessGrant;
  /** The client has a session (stateful HTTP, SSE, WebSocket): list changes and updates can reach it. */
  sessions: boolean;
}

/** One item as the upstream names it: what a policy judges, whichever name the caller sees. */
export type CatalogueItemRef = Pick<CatalogueItem, 'upstream' | 'kind' | 'name'>;

/**
 * What a caller may see and use in a catalogue, on every era and transport alike: lists leave out
 * what it does not permit, and a call, read, get or completion naming such an item is answered as
 * one the catalogue does not have. The seam for tool-level access (tool roles, key scopes); none
 * is provided today, so every caller sees what its grant's servers select.
 */
export abstract class CatalogueAccess {
  abstract permits(caller: CatalogueCaller, item: CatalogueItemRef): boolean;
}
