import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, ValidateIf, ValidateNested } from 'class-validator';
import { Omittable } from '@arbor/platform';
import { IsDescription, IsDisplayName, IsGuardrailNames, IsItemRoles, IsProjectSlug, IsSelectionNames, IsServerId, IsToolRateLimits, IsUpstreamName } from './admin-fields';

/**
 * What a server takes from one upstream (each kind `'*'`, the default, or the names as the
 * upstream gives them), or an A2A agent it includes as one tool (`{agent: <name>}`).
 */
export class SelectionDto {
  @ApiPropertyOptional({ example: 'tickets', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'An upstream; or give `agent`.' })
  @ValidateIf((selection: SelectionDto) => selection.agent === undefined)
  @IsUpstreamName()
  upstream?: string;

  @ApiPropertyOptional({ example: 'helpdesk', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'An A2A agent, offered as one tool; nothing else goes with it.' })
  @IsOptional()
  @IsUpstreamName()
  agent?: string;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['*'] },
      { type: 'array', items: { type: 'string' } },
    ],
    default: '*',
  })
  @IsOptional()
  @IsSelectionNames()
  tools?: '*' | string[];

  /** Resource URIs and resource template URI templates. */
  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['*'] },
      { type: 'array', items: { type: 'string' } },
    ],
    default: '*',
  })
  @IsOptional()
  @IsSelectionNames()
  resources?: '*' | string[];

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: ['*'] },
      { type: 'array', items: { type: 'string' } },
    ],
    default: '*',
  })
  @IsOptional()
  @IsSelectionNames()
  prompts?: '*' | string[];
}

const IsSelections = () =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(100),
    ValidateNested({ each: true }),
    Type(() => SelectionDto),
  );

export class CreateServerDto {
  @ApiProperty({ example: 'support', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' })
  @IsServerId()
  id!: string;

  @ApiProperty({ example: 'alpha' })
  @IsProjectSlug()
  project!: string;

  /** Default: the id. */
  @ApiPropertyOptional({ example: 'Support tools', maxLength: 200 })
  @IsOptional()
  @IsDisplayName()
  name?: string;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsDescription()
  description?: string;

  /** As in MCPGW_CONFIG: `[{upstream, tools, resources, prompts}]`. */
  @ApiProperty({ type: [SelectionDto], maxItems: 100 })
  @IsSelections()
  upstreams!: SelectionDto[];

  /** Guardrails of MCPGW_CONFIG on its tool calls (pre_mcp_call on arguments, post_mcp_call on results), besides the default_on ones. */
  @ApiPropertyOptional({ type: [String], maxItems: 50, example: ['pii'], default: [] })
  @IsOptional()
  @IsGuardrailNames()
  guardrails?: string[];

  /** The role each tool needs, by the name the server exposes it under (or `<upstream>__<tool>`); a tool not named needs any role, one with `destructiveHint: true` the operator role. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['operator', 'viewer'] }, example: { delete_repository: 'operator' }, default: {} })
  @IsOptional()
  @IsItemRoles()
  tool_roles?: Record<string, 'operator' | 'viewer'>;

  /** The role each resource (by URI) or resource template (by URI template) needs; one not named needs any role. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['operator', 'viewer'] }, example: { 'note://payroll': 'operator' }, default: {} })
  @IsOptional()
  @IsItemRoles()
  resource_roles?: Record<string, 'operator' | 'viewer'>;

  /** The role each prompt needs, by name; one not named needs any role. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['operator', 'viewer'] }, example: { incident_review: 'operator' }, default: {} })
  @IsOptional()
  @IsItemRoles()
  prompt_roles?: Record<string, 'operator' | 'viewer'>;

  /** Calls a minute each person or API key may make of a tool (named as for tool_roles). */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', properties: { per_minute: { type: 'integer', minimum: 1, maximum: 1000000 } }, required: ['per_minute'] },
    example: { search: { per_minute: 60 } },
    default: {},
  })
  @IsOptional()
  @IsToolRateLimits()
  tool_rate_limits?: Record<string, { per_minute: number }>;

  /** The audit of its tool calls keeps their arguments and results, as the server's guardrails left them (masked). */
  @ApiPropertyOptional({ type: Boolean, default: false })
  @IsOptional()
  @IsBoolean()
  audit_payloads?: boolean;
}

/** Fields left out stay as they are; `description: null` clears it; `upstreams` replaces the selections, each `*_roles` and `tool_rate_limits` the map it names. */
export class UpdateServerDto {
  @ApiPropertyOptional({ example: 'alpha' })
  @Omittable()
  @IsProjectSlug()
  project?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @Omittable()
  @IsDisplayName()
  name?: string;

  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true })
  @IsOptional()
  @IsDescription()
  description?: string | null;

  @ApiPropertyOptional({ type: [SelectionDto], maxItems: 100 })
  @Omittable()
  @IsSelections()
  upstreams?: SelectionDto[];

  /** Replaces the guardrails it names; `[]` names none. */
  @ApiPropertyOptional({ type: [String], maxItems: 50, example: ['pii'] })
  @Omittable()
  @IsGuardrailNames()
  guardrails?: string[];

  /** The role each tool needs, by the name the server exposes it under (or `<upstream>__<tool>`); a tool not named needs any role, one with `destructiveHint: true` the operator role. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['operator', 'viewer'] }, example: { delete_repository: 'operator' } })
  @Omittable()
  @IsItemRoles()
  tool_roles?: Record<string, 'operator' | 'viewer'>;

  /** The role each resource (by URI) or resource template (by URI template) needs; one not named needs any role. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['operator', 'viewer'] }, example: { 'note://payroll': 'operator' } })
  @Omittable()
  @IsItemRoles()
  resource_roles?: Record<string, 'operator' | 'viewer'>;

  /** The role each prompt needs, by name; one not named needs any role. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string', enum: ['operator', 'viewer'] }, example: { incident_review: 'operator' } })
  @Omittable()
  @IsItemRoles()
  prompt_roles?: Record<string, 'operator' | 'viewer'>;

  /** Calls a minute each person or API key may make of a tool (named as for tool_roles). */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', properties: { per_minute: { type: 'integer', minimum: 1, maximum: 1000000 } }, required: ['per_minute'] },
    example: { search: { per_minute: 60 } },
  })
  @Omittable()
  @IsToolRateLimits()
  tool_rate_limits?: Record<string, { per_minute: number }>;

  /** The audit of its tool calls keeps their arguments and results, as the server's guardrails left them (masked). */
  @ApiPropertyOptional({ type: Boolean })
  @Omittable()
  @IsBoolean()
  audit_payloads?: boolean;
}
