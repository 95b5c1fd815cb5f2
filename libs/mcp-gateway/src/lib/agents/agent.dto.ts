import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Omittable } from '@arbor/platform';
import { IsAgentAuth, IsDescription, IsProjectSlug, IsUpstreamName, IsUpstreamUrl } from '../admin/dto/admin-fields';
import { AGENT_AUTH_TYPES } from './agent-definition';

/** `auth` as the admin API takes it (snake_case, as an upstream's): `none`, `static` headers, or the credentials module's per-caller strategies. */
export interface AgentAuthWire {
  type: (typeof AGENT_AUTH_TYPES)[number];
  headers?: Record<string, string>;
  audience?: string;
  scope?: string;
  client_id?: string;
  client_secret?: string;
  client_credentials?: boolean;
}

/** How the gateway authenticates to the agent; the callers' own credentials never reach it. */
const AUTH: ApiPropertyOptions = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: [...AGENT_AUTH_TYPES] },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      maxProperties: 32,
      writeOnly: true,
      description: 'static: sent on every request to the agent; stored encrypted, never shown again',
    },
    audience: { type: 'string', description: "token_exchange: the agent's audience at the identity provider" },
    scope: { type: 'string', description: 'token_exchange, oauth: the scope asked for' },
    client_id: { type: 'string', description: "oauth: a client registered at the agent's authorisation server; without it the gateway registers one (RFC 7591)" },
    client_secret: { type: 'string', writeOnly: true, description: 'oauth: the secret of client_id; stored encrypted, never shown again' },
    client_credentials: { type: 'boolean', description: 'oauth: machine callers (API keys) get a token with the client-credentials grant' },
  },
  additionalProperties: false,
  example: { type: 'token_exchange', audience: 'arbor-agent' },
  description:
    'none (default), static headers, token_exchange (a token of the calling person for the agent, RFC 8693) or oauth (each person their own account): the same strategies as an upstream.',
};

export class CreateAgentDto {
  @ApiProperty({ example: 'helpdesk', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'Unique among agents and upstreams: /agents/{name}, and its tool name.' })
  @IsUpstreamName()
  name!: string;

  @ApiProperty({
    example: 'https://helpdesk.example.com',
    format: 'uri',
    description: "The agent's base URL (its card at /.well-known/agent-card.json) or its card's URL (…json).",
  })
  @IsUpstreamUrl()
  url!: string;

  @ApiProperty({ example: 'alpha' })
  @IsProjectSlug()
  project!: string;

  @ApiPropertyOptional({ maxLength: 2000, description: "Shown beside the card's own; the tool's description begins with it." })
  @IsOptional()
  @IsDescription()
  description?: string;

  @ApiPropertyOptional({ ...AUTH, default: { type: 'none' } })
  @IsOptional()
  @IsAgentAuth()
  auth?: AgentAuthWire;
}

/** Fields left out stay as they are; `description: null` clears it; `auth` replaces the agent's. */
export class UpdateAgentDto {
  @ApiPropertyOptional({ format: 'uri' })
  @Omittable()
  @IsUpstreamUrl()
  url?: string;

  @ApiPropertyOptional({ example: 'beta' })
  @Omittable()
  @IsProjectSlug()
  project?: string;

  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true })
  @IsOptional()
  @IsDescription()
  description?: string | null;

  /** Replaces the auth; an `oauth` one naming the same client_id without client_secret keeps the stored secret. */
  @ApiPropertyOptional(AUTH)
  @Omittable()
  @IsAgentAuth()
  auth?: AgentAuthWire;
}
