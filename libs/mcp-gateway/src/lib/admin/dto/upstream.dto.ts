import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Omittable } from '@arbor/platform';
import type { UpstreamTransport } from '../../registry/server-registry';
import type { UpstreamAuthWire } from '../../credentials/upstream-auth';
import { IsMaxConcurrency, IsTimeoutMs, IsTransport, IsUpstreamAuth, IsUpstreamHeaders, IsUpstreamName, IsUpstreamUrl } from './admin-fields';

const HEADERS = {
  type: 'object',
  additionalProperties: { type: 'string' },
  maxProperties: 32,
  example: { authorization: 'Bearer …' },
  description: 'Sent on every request to the upstream; stored encrypted, never shown again.',
} as const;

const AUTH: ApiPropertyOptions = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['static', 'token_exchange', 'oauth'] },
    audience: { type: 'string', description: "token_exchange: the upstream's audience at the identity provider" },
    scope: { type: 'string', description: 'token_exchange, oauth: the scope asked for' },
    client_id: { type: 'string', description: "oauth: a client registered at the upstream's authorisation server; without it the gateway registers one (RFC 7591)" },
    client_secret: { type: 'string', writeOnly: true, description: 'oauth: the secret of client_id; stored encrypted, never shown again' },
    client_credentials: { type: 'boolean', description: 'oauth: machine callers (API keys) get a token with the client-credentials grant' },
  },
  additionalProperties: false,
  example: { type: 'token_exchange', audience: 'arbor-tool-server' },
  description: 'How each call is authenticated: static (the headers, default), token_exchange (the calling person, RFC 8693) or oauth (per person).',
};

export class CreateUpstreamDto {
  @ApiProperty({ example: 'tickets', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' })
  @IsUpstreamName()
  name!: string;

  @ApiProperty({ example: 'https://tickets.example.com/mcp', format: 'uri' })
  @IsUpstreamUrl()
  url!: string;

  /** Default streamable-http. */
  @ApiPropertyOptional({ enum: ['streamable-http', 'sse'], default: 'streamable-http' })
  @IsOptional()
  @IsTransport()
  transport?: UpstreamTransport;

  /** Sent on every request to the upstream; stored encrypted, never shown again. */
  @ApiPropertyOptional(HEADERS)
  @IsOptional()
  @IsUpstreamHeaders()
  headers?: Record<string, string>;

  /** Default `{type: static}`. */
  @ApiPropertyOptional(AUTH)
  @IsOptional()
  @IsUpstreamAuth()
  auth?: UpstreamAuthWire;

  /** Per call; default 60 000. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 3_600_000, default: 60_000 })
  @IsOptional()
  @IsTimeoutMs()
  timeout_ms?: number;

  /** Default 10. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10_000, default: 10 })
  @IsOptional()
  @IsMaxConcurrency()
  max_concurrency?: number;
}

/** Fields left out stay as they are; `headers` replaces every header (`{}` removes them all). */
export class UpdateUpstreamDto {
  @ApiPropertyOptional({ example: 'https://tickets.example.com/mcp', format: 'uri' })
  @Omittable()
  @IsUpstreamUrl()
  url?: string;

  @ApiPropertyOptional({ enum: ['streamable-http', 'sse'] })
  @Omittable()
  @IsTransport()
  transport?: UpstreamTransport;

  @ApiPropertyOptional(HEADERS)
  @Omittable()
  @IsUpstreamHeaders()
  headers?: Record<string, string>;

  /** Replaces the auth; an `oauth` one naming the same client_id without client_secret keeps the stored secret. */
  @ApiPropertyOptional(AUTH)
  @Omittable()
  @IsUpstreamAuth({ secretMayBeStored: true })
  auth?: UpstreamAuthWire;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 3_600_000 })
  @Omittable()
  @IsTimeoutMs()
  timeout_ms?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10_000 })
  @Omittable()
  @IsMaxConcurrency()
  max_concurrency?: number;
}
