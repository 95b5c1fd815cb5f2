import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsOptional, ValidateNested } from 'class-validator';
import { Omittable } from '@arbor/platform';
import { IsDescription, IsProjectSlug, IsUpstreamHeaders, IsUpstreamName, IsUpstreamUrl } from '../admin/dto/admin-fields';

/** How the gateway authenticates to the agent; the callers' own credentials never reach it. */
export class AgentAuthDto {
  /** `none`, or `static` headers (stored encrypted, never shown again); the credentials module adds `token_exchange` and `oauth`. */
  @ApiProperty({ enum: ['none', 'static'], example: 'static' })
  @IsIn(['none', 'static'])
  type!: 'none' | 'static';

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    maxProperties: 32,
    example: { authorization: 'Bearer …' },
    description: 'With type static: sent on every request to the agent; stored encrypted, never shown again.',
  })
  @IsOptional()
  @IsUpstreamHeaders()
  headers?: Record<string, string>;
}

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

  @ApiPropertyOptional({ type: AgentAuthDto, default: { type: 'none' } })
  @IsOptional()
  @ValidateNested()
  @Type(() => AgentAuthDto)
  auth?: AgentAuthDto;
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

  @ApiPropertyOptional({ type: AgentAuthDto })
  @Omittable()
  @ValidateNested()
  @Type(() => AgentAuthDto)
  auth?: AgentAuthDto;
}
