import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsBudget, IsBudgetDuration, IsMetadata } from '../keys/dto/key-fields';

/** LiteLLM's team fields without an equivalent here, and why: refused unless at LiteLLM's default. */
export const UNSERVED_TEAM_FIELDS: Record<string, string> = {
  team_alias: "a project's name is the control plane's",
  models: "a project's models are its keys' (models on /key/generate)",
  tpm_limit: 'project rate limits are not served; set tpm_limit on the keys',
  rpm_limit: 'project rate limits are not served; set rpm_limit on the keys',
  max_parallel_requests: 'project limits are not served; set max_parallel_requests on the keys',
  members_with_roles: "a project's members and roles are the control plane's",
  organization_id: 'organizations are not served',
  blocked: "block the project's keys (/key/block)",
  tags: 'tags are not served',
  model_aliases: 'aliases come from model_list',
  guardrails: 'guardrails are set on keys or in the config',
  team_member_budget: 'person budgets are not served yet',
  model_rpm_limit: 'per-model rate limits are not served',
  model_tpm_limit: 'per-model rate limits are not served',
};

export class TeamInfoQuery {
  @ApiProperty({ example: 'alpha', description: "The project's slug." })
  @IsString()
  @MaxLength(64)
  team_id!: string;
}

export class UpdateTeamDto {
  @ApiProperty({ example: 'alpha', description: "The project's slug: LiteLLM's team is a control-plane project." })
  @IsString()
  @MaxLength(64)
  team_id!: string;

  @ApiPropertyOptional({ type: Number, minimum: 0, nullable: true, example: 100, description: 'USD per budget period for every key of the project; null: none.' })
  @IsOptional()
  @IsBudget()
  max_budget?: number | null;

  @ApiPropertyOptional({ example: '30d', nullable: true })
  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown> | null;

  // Refused unless at LiteLLM's default (UNSERVED_TEAM_FIELDS).
  @Allow() team_alias?: unknown;
  @Allow() models?: unknown;
  @Allow() tpm_limit?: unknown;
  @Allow() rpm_limit?: unknown;
  @Allow() max_parallel_requests?: unknown;
  @Allow() members_with_roles?: unknown;
  @Allow() organization_id?: unknown;
  @Allow() blocked?: unknown;
  @Allow() tags?: unknown;
  @Allow() model_aliases?: unknown;
  @Allow() guardrails?: unknown;
  @Allow() team_member_budget?: unknown;
  @Allow() model_rpm_limit?: unknown;
  @Allow() model_tpm_limit?: unknown;
}
