import type { AgentCard } from '@a2a-js/sdk';

/**
 * What the gateway sends an agent on every request, as its `auth` says. `static`: the headers
 * given (sealed in the database like upstream headers). The other strategies of the credentials
 * module (token exchange, OAuth) plug in behind AgentCredentials.
 */
export type AgentAuth = { kind: 'none' } | { kind: 'static'; headers: Readonly<Record<string, string>> };

/** An A2A agent as the runtime needs it (secrets opened: never log `auth`). */
export interface AgentDefinition {
  /** Unique among agents and upstreams, `[a-z0-9][a-z0-9_-]*`: `/agents/{name}`, and its tool's name. */
  name: string;
  /** The agent's base URL (its card at `/.well-known/agent-card.json`) or its card's own URL. */
  url: string;
  /** Control-plane project slug: callers need a role on it. */
  project: string;
  description?: string;
  auth: AgentAuth;
}

/** The card as last read, with when; absent until the first read succeeded. */
export interface AgentCardRecord {
  card: AgentCard;
  readAt: Date;
}

/** The headers an agent's `auth` gives (none for `none`). */
export function staticHeaders(auth: AgentAuth): Readonly<Record<string, string>> {
  return auth.kind === 'static' ? auth.headers : {};
}
