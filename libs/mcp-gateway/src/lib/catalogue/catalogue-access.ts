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
export type CatalogueItemRef = Pick<CatalogueItem, 'upstream' | 'kind' | 'name'> & {
  /** A tool whose annotations say `destructiveHint: true`. */
  destructive?: boolean;
  /** A resource read through a resource template: the template (as the upstream names it) it matched. */
  template?: string;
};

/**
 * What a caller may see and use in a catalogue, on every era and transport alike: lists leave out
 * what it does not permit, and a call, read, get or completion naming such an item is answered as
 * one the catalogue does not have. Tool roles and key scopes (`tool-access/`) are this policy.
 */
export abstract class CatalogueAccess {
  abstract permits(caller: CatalogueCaller, item: CatalogueItemRef): boolean;
}
