import { IsOptional } from 'class-validator';
import { Omittable } from '@arbor/platform';
import type { UpstreamTransport } from '../../registry/server-registry';
import { IsMaxConcurrency, IsTimeoutMs, IsTransport, IsUpstreamHeaders, IsUpstreamName, IsUpstreamUrl } from './admin-fields';

export class CreateUpstreamDto {
  @IsUpstreamName()
  name!: string;

  @IsUpstreamUrl()
  url!: string;

  /** Default streamable-http. */
  @IsOptional()
  @IsTransport()
  transport?: UpstreamTransport;

  /** Sent on every request to the upstream; stored encrypted, never shown again. */
  @IsOptional()
  @IsUpstreamHeaders()
  headers?: Record<string, string>;

  /** Per call; default 60 000. */
  @IsOptional()
  @IsTimeoutMs()
  timeout_ms?: number;

  /** Default 10. */
  @IsOptional()
  @IsMaxConcurrency()
  max_concurrency?: number;
}

/** Fields left out stay as they are; `headers` replaces every header (`{}` removes them all). */
export class UpdateUpstreamDto {
  @Omittable()
  @IsUpstreamUrl()
  url?: string;

  @Omittable()
  @IsTransport()
  transport?: UpstreamTransport;

  @Omittable()
  @IsUpstreamHeaders()
  headers?: Record<string, string>;

  @Omittable()
  @IsTimeoutMs()
  timeout_ms?: number;

  @Omittable()
  @IsMaxConcurrency()
  max_concurrency?: number;
}
