import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AgentCard } from '@a2a-js/sdk';
import type { AgentHealth } from './agent-directory';
import type { StoredAgent } from './agent-rows';
import { agentBaseUrl } from './gateway-card';
import { authResponse } from '../credentials/upstream-auth';
import { staticHeaders } from './agent-definition';
import { HealthResponse } from '../admin/dto/admin.responses';

/** How the gateway authenticates to an agent: static headers by name only; a per-caller auth's settings without the client secret. */
export class AgentAuthResponse {
  @ApiProperty({ enum: ['none', 'static', 'token_exchange', 'oauth'] })
  type!: 'none' | 'static' | 'token_exchange' | 'oauth';

  @ApiProperty({ type: [String], description: 'Names of the static headers, never their values.' })
  header_names!: string[];

  @ApiPropertyOptional()
  audience?: string;

  @ApiPropertyOptional()
  scope?: string;

  @ApiPropertyOptional()
  client_id?: string;

  @ApiPropertyOptional()
  has_client_secret?: boolean;

  @ApiPropertyOptional()
  client_credentials?: boolean;
}

export class AgentInterfaceResponse {
  @ApiProperty({ example: 'JSONRPC' })
  binding!: string;

  @ApiProperty({ example: '1.0' })
  protocol_version!: string;
}

export class AgentCapabilitiesResponse {
  @ApiProperty()
  streaming!: boolean;

  @ApiProperty()
  push_notifications!: boolean;
}

export class AgentSkillResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty({ type: [String] }) examples!: string[];
}

/** What the agent's own card says, as last read. */
export class AgentCardSummary {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() version!: string;

  @ApiProperty({ type: [AgentInterfaceResponse], description: 'The A2A versions and bindings the agent itself speaks.' })
  interfaces!: AgentInterfaceResponse[];

  @ApiProperty({ type: AgentCapabilitiesResponse })
  capabilities!: AgentCapabilitiesResponse;

  @ApiProperty({ type: [AgentSkillResponse] })
  skills!: AgentSkillResponse[];
}

/** An agent as the admin API (and the MCP gateway's UI) shows it: header names, never their values. */
export class AgentResponse {
  @ApiProperty({ example: 'helpdesk' })
  name!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ example: 'alpha' })
  project!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({ type: AgentAuthResponse })
  auth!: (ReturnType<typeof authResponse> | { type: 'none' | 'static' }) & { header_names: string[] };

  @ApiProperty({ enum: ['api', 'config'], description: '`config`: from MCPGW_CONFIG, read-only here.' })
  source!: 'api' | 'config';

  @ApiProperty({ format: 'uri', description: 'Where callers reach it through the gateway: JSON-RPC here, HTTP+JSON at `…/rest`.' })
  gateway_url!: string;

  @ApiProperty({ format: 'uri', description: "The card the gateway serves (every interface the gateway's)." })
  card_url!: string;

  @ApiProperty({ type: AgentCardSummary, nullable: true, description: "The agent's own card as last read; null before the first read." })
  card!: AgentCardSummary | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  card_read_at!: string | null;

  @ApiProperty({ type: HealthResponse })
  health!: { state: AgentHealth['state']; last_seen_at: string | null; last_error: string | null };

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: string;
}

export class AgentListResponse {
  @ApiProperty({ type: [AgentResponse] })
  agents!: AgentResponse[];
}

/** One A2A method's calls to an agent in one hour (`method`: SendMessage, SendStreamingMessage, GetTask…; this replica's). */
export class AgentCallHourResponse {
  @ApiProperty({ format: 'date-time', description: "The hour's start." })
  hour!: string;

  @ApiProperty({ example: 'SendMessage' })
  method!: string;

  @ApiProperty({ type: 'integer' })
  calls!: number;

  @ApiProperty({ type: 'integer' })
  errors!: number;

  @ApiProperty({ type: Number, nullable: true })
  mean_latency_ms!: number | null;
}

export class AgentCallHoursResponse {
  @ApiProperty({ type: [AgentCallHourResponse] })
  hours!: AgentCallHourResponse[];
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
