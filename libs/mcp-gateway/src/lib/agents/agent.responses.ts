import type { AgentCard } from '@a2a-js/sdk';
import type { AgentHealth } from './agent-directory';
import type { StoredAgent } from './agent-rows';
import { agentBaseUrl } from './gateway-card';
import { authResponse } from '../credentials/upstream-auth';
import { staticHeaders } from './agent-definition';

/** An agent as the admin API (and the MCP gateway's UI) shows it: header names, never their values. */
export interface AgentResponse {
  name: string;
  url: string;
  project: string;
  description: string | null;
  /** Static headers by name only; a per-caller auth's settings without the client secret (`has_client_secret`). */
  auth: (ReturnType<typeof authResponse> | { type: 'none' | 'static' }) & { header_names: string[] };
  /** `config`: from MCPGW_CONFIG, read-only here. */
  source: string;
  /** Where callers reach it through the gateway: JSON-RPC here, HTTP+JSON at `…/rest`. */
  gateway_url: string;
  /** The card the gateway serves (every interface the gateway's). */
  card_url: string;
  /** The agent's own card as last read; null before the first read. */
  card: AgentCardSummary | null;
  card_read_at: string | null;
  health: { state: AgentHealth['state']; last_seen_at: string | null; last_error: string | null };
  created_at: string;
  updated_at: string;
}

export interface AgentCardSummary {
  name: string;
  description: string;
  version: string;
  /** The A2A versions and bindings the agent itself speaks. */
  interfaces: { binding: string; protocol_version: string }[];
  capabilities: { streaming: boolean; push_notifications: boolean };
  skills: { id: string; name: string; description: string; tags: string[]; examples: string[] }[];
}

export function agentResponse(agent: StoredAgent, publicUrl: string, card: AgentCard | undefined, health: AgentHealth | undefined): AgentResponse {
  const base = agentBaseUrl(publicUrl, agent.name);
  const readAt = health?.cardReadAt ?? agent.card?.readAt.toISOString() ?? null;
  const shown = card ?? agent.card?.card;
  return {
    name: agent.name,
    url: agent.url,
    project: agent.project,
    description: agent.description ?? null,
    auth:
      agent.auth.type === 'none' || agent.auth.type === 'static'
        ? { type: agent.auth.type, header_names: Object.keys(staticHeaders(agent.auth)).sort() }
        : { ...authResponse(agent.auth), header_names: [] },
    source: agent.source,
    gateway_url: base,
    card_url: `${base}/.well-known/agent-card.json`,
    card: shown ? cardSummary(shown) : null,
    card_read_at: readAt,
    health: { state: health?.state ?? 'connecting', last_seen_at: health?.lastSeenAt ?? null, last_error: health?.lastError ?? null },
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  };
}

function cardSummary(card: AgentCard): AgentCardSummary {
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    interfaces: card.supportedInterfaces.map((entry) => ({ binding: entry.protocolBinding, protocol_version: entry.protocolVersion })),
    capabilities: { streaming: card.capabilities?.streaming === true, push_notifications: card.capabilities?.pushNotifications === true },
    skills: card.skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description, tags: [...skill.tags], examples: [...skill.examples] })),
  };
}
