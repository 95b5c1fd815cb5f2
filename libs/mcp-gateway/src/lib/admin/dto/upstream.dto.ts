import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Omittable } from '@arbor/platform';
import type { UpstreamTransport } from '../../registry/server-registry';
import { IsMaxConcurrency, IsTimeoutMs, IsTransport, IsUpstreamHeaders, IsUpstreamName, IsUpstreamUrl } from './admin-fields';

const HEADERS = {
  type: 'object',
  additionalProperties: { type: 'string' },
  maxProperties: 32,
  example: { authorization: 'Bearer …' },
  description: 'Sent on every request to the upstream; stored encrypted, never shown again.',
} as const;

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

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 3_600_000 })
  @Omittable()
  @IsTimeoutMs()
  timeout_ms?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10_000 })
  @Omittable()
  @IsMaxConcurrency()
  max_concurrency?: number;
}
