import type { AgentCard } from '@a2a-js/sdk';
import type { OAuthAuth, TokenExchangeAuth } from '../credentials/upstream-auth';

/**
 * What the gateway sends an agent, as its `auth` says: `none`; `static` headers (sealed in the
 * database like upstream headers); or, per caller, the credentials module's `token_exchange` and
 * `oauth`, the same strategies (and settings) as an upstream MCP server's.
 */
export type AgentAuth = { type: 'none' } | StaticHeadersAuth | TokenExchangeAuth | OAuthAuth;

export interface StaticHeadersAuth {
  type: 'static';
  headers: Readonly<Record<string, string>>;
}

export const NO_AUTH: AgentAuth = { type: 'none' };
export const AGENT_AUTH_TYPES = ['none', 'static', 'token_exchange', 'oauth'] as const;

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

/** The headers an agent's `auth` gives whoever calls (none but for `static`). */
export function staticHeaders(auth: AgentAuth): Readonly<Record<string, string>> {
  return auth.type === 'static' ? auth.headers : {};
}
