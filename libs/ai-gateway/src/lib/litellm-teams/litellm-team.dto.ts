import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsDefined, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IsAliasList, IsBudget, IsBudgetDuration, IsGuardrailList, IsLimit, IsMetadata } from '../keys/dto/key-fields';

/** LiteLLM's team fields without an equivalent here, and why: refused unless at LiteLLM's default. */
export const UNSERVED_TEAM_FIELDS: Record<string, string> = {
  team_alias: "a project's name is the control plane's",
  max_parallel_requests: 'project limits are not served; set max_parallel_requests on the keys',
  members_with_roles: "a project's members and roles are the control plane's",
  organization_id: 'organizations are not served',
  blocked: "block the project's keys (/key/block)",
  tags: 'tags are not served',
  model_aliases: 'aliases come from model_list',
  team_member_budget: "set each member's budget with /team/member_update (max_budget_in_team)",
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

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['pii-mask'],
    description: "Guardrails of the config that run on every call of the project's keys; null or []: none.",
  })
  @IsOptional()
  @IsGuardrailList()
  guardrails?: string[] | null;

  // Refused unless at LiteLLM's default (UNSERVED_TEAM_FIELDS).
  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['gpt-4o'],
    description: "The aliases the project's keys may call (wildcards as on keys); null or []: every alias their keys allow.",
  })
  @IsOptional()
  @IsAliasList()
  models?: string[] | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true, example: 1000, description: "Requests per minute over all the project's keys; null: none." })
  @IsOptional()
  @IsLimit()
  rpm_limit?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true, example: 100000, description: "Tokens per minute over all the project's keys; null: none." })
  @IsOptional()
  @IsLimit()
  tpm_limit?: number | null;

  @Allow() team_alias?: unknown;
  @Allow() max_parallel_requests?: unknown;
  @Allow() members_with_roles?: unknown;
  @Allow() organization_id?: unknown;
  @Allow() blocked?: unknown;
  @Allow() tags?: unknown;
  @Allow() model_aliases?: unknown;
  @Allow() team_member_budget?: unknown;
  @Allow() model_rpm_limit?: unknown;
  @Allow() model_tpm_limit?: unknown;
}

/** A member as LiteLLM's /team/member_add names one: the person is a control-plane user id. */
export class TeamMemberDto {
  @ApiProperty({ example: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b', description: 'A control-plane user with a role on the project.' })
  @IsString()
  @MaxLength(128)
  user_id!: string;

  @ApiPropertyOptional({ enum: ['user'], description: "Only LiteLLM's default: roles are the control plane's (give ai-gateway.operator there)." })
  @IsOptional()
  @IsString()
  role?: string;

  // Refused: a person is named by id here.
  @Allow() user_email?: unknown;
}

// TeamMemberDto is named only inside oneOf: registered here, or the document's $refs point at nothing.
@ApiExtraModels(TeamMemberDto)
export class AddTeamMemberDto {
  @ApiProperty({ example: 'alpha', description: "The project's slug." })
  @IsString()
  @MaxLength(64)
  team_id!: string;

  @ApiProperty({ oneOf: [{ $ref: getSchemaPath(TeamMemberDto) }, { type: 'array', items: { $ref: getSchemaPath(TeamMemberDto) } }] })
  @IsDefined()
  @ValidateNested({ each: true })
  @Type(() => TeamMemberDto)
  member!: TeamMemberDto | TeamMemberDto[];

  @ApiPropertyOptional({ type: Number, minimum: 0, nullable: true, example: 50, description: "USD each member may spend in the project (their keys' calls), per budget_duration." })
  @IsOptional()
  @IsBudget()
  max_budget_in_team?: number | null;

  @ApiPropertyOptional({ example: '30d', nullable: true, description: "The member budget's period (Arbor's addition; none: a lifetime budget)." })
  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;
}

export class UpdateTeamMemberDto {
  @ApiProperty({ example: 'alpha', description: "The project's slug." })
  @IsString()
  @MaxLength(64)
  team_id!: string;

  @ApiProperty({ example: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b', description: 'A control-plane user with a role on the project.' })
  @IsString()
  @MaxLength(128)
  user_id!: string;

  @ApiPropertyOptional({
    type: Number,
    minimum: 0,
    nullable: true,
    example: 50,
    description: "USD the person may spend in the project (their keys' calls); null: no budget of their own.",
  })
  @IsOptional()
  @IsBudget()
  max_budget_in_team?: number | null;

  @ApiPropertyOptional({ example: '30d', nullable: true })
  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;

  // Refused unless at LiteLLM's default: the control plane has the person's role and the keys their rates.
  @Allow() role?: unknown;
  @Allow() user_email?: unknown;
  @Allow() tpm_limit?: unknown;
  @Allow() rpm_limit?: unknown;
}

export class DeleteTeamMemberDto {
  @ApiProperty({ example: 'alpha' })
  @IsString()
  @MaxLength(64)
  team_id!: string;

  @ApiProperty({ example: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b' })
  @IsString()
  @MaxLength(128)
  user_id!: string;

  @Allow() user_email?: unknown;
}
