import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { RepositoryRecord } from '@arbor/contract';
import type { StoredServer, StoredUpstream } from '../../registry/registry-store';
import type { ItemRole, UpstreamSelection } from '../../registry/server-registry';
import type { UpstreamHealth } from '../../registry/upstream-catalogue';
import { authResponse, STATIC_AUTH } from '../../credentials/upstream-auth';

/** A runtime's view of an upstream or agent: from its pings. */
export class HealthResponse {
  @ApiProperty({ enum: ['up', 'down', 'connecting'] })
  state!: UpstreamHealth['state'];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_seen_at!: string | null;

  @ApiProperty({ type: String, nullable: true })
  last_error!: string | null;
}

/** `static`: the upstream's own headers, whoever calls. */
export class StaticAuthResponse {
  @ApiProperty({ enum: ['static'] })
  type!: 'static';
}

/** `token_exchange`: the calling person's token exchanged (RFC 8693) for one with the upstream as audience. */
export class TokenExchangeAuthResponse {
  @ApiProperty({ enum: ['token_exchange'] })
  type!: 'token_exchange';

  @ApiProperty()
  audience!: string;

  @ApiPropertyOptional()
  scope?: string;
}

/** `oauth`: each person's own account at the upstream; the client secret only as `has_client_secret`. */
export class OAuthAuthResponse {
  @ApiProperty({ enum: ['oauth'] })
  type!: 'oauth';

  @ApiPropertyOptional()
  scope?: string;

  @ApiPropertyOptional({ description: 'Absent: a client the gateway registered itself (RFC 7591).' })
  client_id?: string;

  @ApiProperty()
  has_client_secret!: boolean;

  @ApiProperty({ description: 'API keys call it with the client-credentials grant.' })
  client_credentials!: boolean;
}

const AUTH_RESPONSES = [StaticAuthResponse, TokenExchangeAuthResponse, OAuthAuthResponse];

/** An upstream as the admin API shows it: header names, never their values. */
@ApiExtraModels(...AUTH_RESPONSES)
export class UpstreamResponse {
  @ApiProperty({ example: 'github' })
  name!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ enum: ['streamable-http', 'sse'] })
  transport!: 'streamable-http' | 'sse';

  @ApiProperty({ type: [String] })
  header_names!: string[];

  @ApiProperty({
    oneOf: AUTH_RESPONSES.map((model) => ({ $ref: getSchemaPath(model) })),
    // The mapping names each shape's `type`; without it a client generator reads the schema names as the values.
    discriminator: {
      propertyName: 'type',
      mapping: { static: getSchemaPath(StaticAuthResponse), token_exchange: getSchemaPath(TokenExchangeAuthResponse), oauth: getSchemaPath(OAuthAuthResponse) },
    },
    description: 'How each call is authenticated; a client secret only as `has_client_secret`.',
  })
  auth!: ReturnType<typeof authResponse>;

  @ApiProperty({ type: 'integer' })
  timeout_ms!: number;

  @ApiProperty({ type: 'integer' })
  max_concurrency!: number;

  @ApiProperty({ enum: ['api', 'config'], description: '`config`: from MCPGW_CONFIG, read-only here.' })
  source!: 'api' | 'config';

  @ApiPropertyOptional({ type: HealthResponse, description: "From the runtime's pings; absent when the gateway runs without it." })
  health?: HealthResponse;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The MCP version the runtime speaks with it: 2026-07-28 when it answers server/discover, else what initialize agreed; null before it connects.',
  })
  protocol_version?: string | null;

  @ApiPropertyOptional({ type: 'integer' })
  tool_count?: number;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: string;
}

export class UpstreamListResponse {
  @ApiProperty({ type: [UpstreamResponse] })
  upstreams!: UpstreamResponse[];
}

export function upstreamResponse(upstream: StoredUpstream, runtime?: { health?: UpstreamHealth; toolCount: number }): UpstreamResponse {
  return {
    name: upstream.name,
    url: upstream.url,
    transport: upstream.transport,
    header_names: Object.keys(upstream.headers).sort(),
    auth: authResponse(upstream.auth ?? STATIC_AUTH),
    timeout_ms: upstream.timeoutMs,
    max_concurrency: upstream.maxConcurrency,
    source: upstream.source,
    ...(runtime
      ? {
          health: runtime.health
            ? { state: runtime.health.state, last_seen_at: runtime.health.lastSeenAt ?? null, last_error: runtime.health.lastError ?? null }
            : { state: 'connecting' as const, last_seen_at: null, last_error: null },
          protocol_version: runtime.health?.protocolVersion ?? null,
          tool_count: runtime.toolCount,
        }
      : {}),
    created_at: upstream.createdAt.toISOString(),
    updated_at: upstream.updatedAt.toISOString(),
  };
}

const ALL_OR_NAMES = {
  oneOf: [
    { type: 'string' as const, enum: ['*'] },
    { type: 'array' as const, items: { type: 'string' as const } },
  ],
};

/** What a virtual server takes from one upstream: `'*'` or the names. */
export class SelectionResponse {
  @ApiProperty()
  upstream!: string;

  @ApiProperty({ ...ALL_OR_NAMES, description: 'Tool names as the upstream names them.' })
  tools!: '*' | readonly string[];

  @ApiProperty({ ...ALL_OR_NAMES, description: 'Resource URIs (and resource template URI templates).' })
  resources!: '*' | readonly string[];

  @ApiProperty(ALL_OR_NAMES)
  prompts!: '*' | readonly string[];
}

/** An A2A agent a virtual server offers as one tool. */
export class AgentSelectionResponse {
  @ApiProperty()
  agent!: string;
}

export class ToolRateLimitResponse {
  @ApiProperty({ type: 'integer', minimum: 1 })
  per_minute!: number;
}

const ROLE_MAP = { type: 'object' as const, additionalProperties: { type: 'string' as const, enum: ['operator', 'viewer'] } };

@ApiExtraModels(SelectionResponse, AgentSelectionResponse, ToolRateLimitResponse)
export class ServerResponse {
  @ApiProperty({ example: 'support' })
  id!: string;

  @ApiProperty({ example: 'alpha' })
  project!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ $ref: getSchemaPath(SelectionResponse) }, { $ref: getSchemaPath(AgentSelectionResponse) }] },
    description: '`{upstream, tools, resources, prompts}`, or `{agent}` for an A2A agent it includes.',
  })
  upstreams!: (UpstreamSelection | { agent: string })[];

  @ApiProperty({ type: [String], description: 'The guardrails it names (the default_on ones of MCPGW_CONFIG apply besides).' })
  guardrails!: string[];

  @ApiProperty({ ...ROLE_MAP, description: 'The role each named tool needs (others: any role; `destructiveHint: true` ones: operator).' })
  tool_roles!: Record<string, ItemRole>;

  @ApiProperty(ROLE_MAP)
  resource_roles!: Record<string, ItemRole>;

  @ApiProperty(ROLE_MAP)
  prompt_roles!: Record<string, ItemRole>;

  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(ToolRateLimitResponse) }, description: 'Calls a minute each person or key may make of a tool.' })
  tool_rate_limits!: Record<string, ToolRateLimitResponse>;

  @ApiProperty()
  audit_payloads!: boolean;

  @ApiProperty({ enum: ['api', 'config'] })
  source!: 'api' | 'config';

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: string;
}

export class ServerListResponse {
  @ApiProperty({ type: [ServerResponse] })
  servers!: ServerResponse[];
}

/** A repository of the server's project, as the control plane has it (what {{project.repository_token}} opens). */
export class RepositoryResponse implements RepositoryRecord {
  @ApiProperty() id!: string;
  @ApiProperty() project_id!: string;
  @ApiProperty() project_slug!: string;
  @ApiProperty() source_host!: string;
  @ApiProperty() owner!: string;
  @ApiProperty() name!: string;
  @ApiProperty() full_name!: string;
  @ApiProperty() branch!: string;
  @ApiProperty() installation_id!: string;
}

export class ServerWithRepositoriesResponse extends ServerResponse {
  @ApiProperty({ type: [RepositoryResponse] })
  repositories!: RepositoryResponse[];
}

export function serverResponse(server: StoredServer): ServerResponse {
  return {
    id: server.id,
    project: server.project,
    name: server.name,
    description: server.description ?? null,
    upstreams: server.selections.map((selection) => (selection.kind === 'agent' ? { agent: selection.upstream } : selection)),
    guardrails: [...(server.guardrails ?? [])],
    tool_roles: { ...server.toolRoles },
    resource_roles: { ...server.resourceRoles },
    prompt_roles: { ...server.promptRoles },
    tool_rate_limits: Object.fromEntries(Object.entries(server.toolRateLimits ?? {}).map(([tool, limit]) => [tool, { per_minute: limit.perMinute }])),
    audit_payloads: server.auditPayloads === true,
    source: server.source,
    created_at: server.createdAt.toISOString(),
    updated_at: server.updatedAt.toISOString(),
  };
}
