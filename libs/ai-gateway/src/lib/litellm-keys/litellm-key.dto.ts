import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { Omittable } from '@arbor/platform';
import { IsAliasList, IsBudget, IsBudgetDuration, IsGuardrailList, IsKeyAlias, IsLimit, IsMetadata, IsModelBudgets, IsModelLimits, IsUserId } from '../keys/dto/key-fields';

/** LiteLLM's key durations: 30s, 30m, 30h, 30d, 2w, 1mo, 1y. */
export const KEY_DURATION = /^[1-9][0-9]{0,5}(s|m|h|d|w|mo|y)$/;

/**
 * LiteLLM key fields this gateway has no equivalent for. Sent with a value other than LiteLLM's
 * default they are refused (ignoring them would weaken the key's limits or accounting); each
 * says why and what to do instead.
 */
export const UNSERVED_KEY_FIELDS: Record<string, string> = {
  spend: "a key's spend is what its calls cost here and cannot be set",
  aliases: 'key-level model aliases are not served; configure aliases in model_list',
  config: 'key-level configuration is not served',
  permissions: 'key-level permissions are not served',
  allowed_cache_controls: 'every key may use every cache control here',
  budget_limits: 'several budget windows are not served; use max_budget with budget_duration',
  policies: 'policies are not served',
  prompts: 'prompts are not served',
  tags: 'tag-based budgets and routing are not served; put tags in metadata',
  organization_id: 'organizations are not served; keys belong to a project (team_id)',
  agent_id: 'agents are not served',
  budget_id: 'shared budgets are not served; use max_budget',
  enforced_params: 'enforced request parameters are not served',
  object_permission: 'object permissions (MCP servers, vector stores) are not served',
  allowed_routes: 'route restrictions are not served',
  key: 'this gateway makes its own keys (sk-arbor-…); a chosen key value cannot be kept',
  key_type: 'key types are not served: every key may call every model API',
  auto_rotate: 'automatic rotation is not served; call /key/regenerate',
  rotation_interval: 'automatic rotation is not served; call /key/regenerate',
  send_invite_email: 'invitation e-mails are not served',
  budget_fallbacks: 'budget fallbacks are not served',
  mcp_rpm_limit: 'MCP rate limits are not served here',
  tag_rpm_limit: 'tag rate limits are not served',
};

/** The fields of /key/generate, /key/update and /key/regenerate that translate to a key here. */
export class LiteLlmKeyFieldsDto {
  @ApiPropertyOptional({ example: 'search-backend' })
  @IsOptional()
  @IsKeyAlias()
  key_alias?: string | null;

  @ApiPropertyOptional({ example: '30d', description: 'The key expires this long after the call (30s, 30m, 30h, 30d, 2w, 1mo, 1y); null: never.' })
  @IsOptional()
  @IsString()
  @Matches(KEY_DURATION, { message: '$property must look like 30s, 30m, 30h, 30d, 2w, 1mo or 1y' })
  duration?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['gpt-4o-mini'], description: 'Aliases the key may call; empty or ["all-proxy-models"]: every alias.' })
  @IsOptional()
  @IsAliasList()
  models?: string[] | null;

  @ApiPropertyOptional({ type: [String], example: ['pii-mask'], description: "Guardrails of the config that run on every call of the key; null or []: none of the key's own." })
  @IsOptional()
  @IsGuardrailList()
  guardrails?: string[] | null;

  @ApiPropertyOptional({ type: Number, minimum: 0, example: 25 })
  @IsOptional()
  @IsBudget()
  max_budget?: number | null;

  @ApiPropertyOptional({ example: '30d' })
  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @IsLimit()
  rpm_limit?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @IsLimit()
  tpm_limit?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @IsLimit()
  max_parallel_requests?: number | null;

  @ApiPropertyOptional({ type: Number, minimum: 0, example: 20, description: 'Reaching it in the budget period raises an alert; it refuses nothing.' })
  @IsOptional()
  @IsBudget()
  soft_budget?: number | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { 'gpt-4o': { budget_limit: 10, time_period: '1d' } } })
  @IsOptional()
  @IsModelBudgets()
  model_max_budget?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Free-form labels; metadata.project names the project when team_id does not.' })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown> | null;

  @ApiPropertyOptional({ example: 'alpha', description: "The key's control-plane project (its slug): LiteLLM's team is a project here." })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  team_id?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  blocked?: boolean | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 128, description: "The person the key is for: a control-plane user with a role on the key's project (team_id)." })
  @IsOptional()
  @IsUserId()
  user_id?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'integer', minimum: 1 }, example: { 'gpt-4o': 10 } })
  @IsOptional()
  @IsModelLimits()
  model_rpm_limit?: Record<string, number> | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'integer', minimum: 1 }, example: { 'gpt-4o': 100000 } })
  @IsOptional()
  @IsModelLimits()
  model_tpm_limit?: Record<string, number> | null;

  // LiteLLM's fields without an equivalent: refused unless at LiteLLM's default (UNSERVED_KEY_FIELDS).
  @Allow() spend?: unknown;
  @Allow() aliases?: unknown;
  @Allow() config?: unknown;
  @Allow() permissions?: unknown;
  @Allow() allowed_cache_controls?: unknown;
  @Allow() budget_limits?: unknown;
  @Allow() policies?: unknown;
  @Allow() prompts?: unknown;
  @Allow() tags?: unknown;
  @Allow() organization_id?: unknown;
  @Allow() agent_id?: unknown;
  @Allow() budget_id?: unknown;
  @Allow() enforced_params?: unknown;
  @Allow() object_permission?: unknown;
  @Allow() allowed_routes?: unknown;
  @Allow() key_type?: unknown;
  @Allow() auto_rotate?: unknown;
  @Allow() rotation_interval?: unknown;
  @Allow() send_invite_email?: unknown;
  @Allow() budget_fallbacks?: unknown;
  @Allow() mcp_rpm_limit?: unknown;
  @Allow() tag_rpm_limit?: unknown;
}

export class GenerateKeyDto extends LiteLlmKeyFieldsDto {
  /** A chosen key value: refused (UNSERVED_KEY_FIELDS). */
  @Allow() key?: unknown;
}

/** A body naming one key: the key itself (sk-arbor-…), LiteLLM's `token` (its SHA-256), or its id. */
export class KeyReferenceDto {
  @ApiProperty({ example: 'sk-arbor-…' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  key!: string;
}

export class UpdateLiteLlmKeyDto extends LiteLlmKeyFieldsDto {
  @ApiProperty({ example: 'sk-arbor-…' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  key!: string;
}

export class RegenerateKeyDto extends LiteLlmKeyFieldsDto {
  @ApiPropertyOptional({ example: 'sk-arbor-…', description: 'The key to regenerate, when the path does not name it.' })
  // Left out, the path names the key; null names none and is refused like any other non-text.
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  key?: string;

  /** A chosen new key, or a new master key: refused (the master key is AIGW_MASTER_KEY). */
  @Allow() new_key?: unknown;
  @Allow() new_master_key?: unknown;
}

/** An optional list of up to 1 000 keys or aliases, each non-empty text of at most 200 characters. */
const IsKeyList = () =>
  applyDecorators(
    ApiPropertyOptional({ type: [String], maxItems: 1000 }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(1000),
    IsString({ each: true }),
    IsNotEmpty({ each: true }),
    MaxLength(200, { each: true }),
  );

export class DeleteKeysDto {
  @IsKeyList() keys?: string[];
  @IsKeyList() key_aliases?: string[];
}

export class KeyInfoQuery {
  @ApiProperty({ example: 'sk-arbor-…', description: 'The key, its token (SHA-256) or its id.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  key!: string;
}

const booleanQuery = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

export class KeyListQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  size?: number;

  @ApiPropertyOptional({ description: 'Only the keys of this project (slug).' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  team_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsKeyAlias()
  key_alias?: string;

  @ApiPropertyOptional({ description: "A key's token (SHA-256)." })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-f]{64}$/, { message: '$property must be a key token (64 hex digits)' })
  key_hash?: string;

  @ApiPropertyOptional({ description: 'true: the keys as objects; false (default): their tokens.' })
  @IsOptional()
  @Transform(booleanQuery)
  @IsBoolean()
  return_full_object?: boolean;

  @ApiPropertyOptional({ description: "Accepted: a project's keys are already every key its operators see." })
  @IsOptional()
  @Transform(booleanQuery)
  @IsBoolean()
  include_team_keys?: boolean;

  @ApiPropertyOptional({ enum: ['created_at', 'updated_at', 'spend', 'key_alias', 'expires'] })
  @IsOptional()
  @IsIn(['created_at', 'updated_at', 'spend', 'key_alias', 'expires'])
  sort_by?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'] })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  sort_order?: 'asc' | 'desc';

  @ApiPropertyOptional({ description: 'Only the keys of this person (a control-plane user id).' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  user_id?: string;

  // Organizations are not served: refused when given.
  @Allow() organization_id?: unknown;
}

export const IsDay = () => Matches(/^\d{4}-\d{2}-\d{2}$/, { message: '$property must be a date: YYYY-MM-DD' });

export class SpendLogsQuery {
  @ApiPropertyOptional({ format: 'date', example: '2026-11-01' })
  @IsOptional()
  @IsDay()
  start_date?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-30' })
  @IsOptional()
  @IsDay()
  end_date?: string;

  @ApiPropertyOptional({ description: 'Only this key: the key, its token (SHA-256) or its id.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  api_key?: string;

  @ApiPropertyOptional({ description: 'With start_date and end_date, true (the default) answers daily totals; false, or no dates, lists single calls.' })
  @IsOptional()
  @Transform(booleanQuery)
  @IsBoolean()
  summarize?: boolean;

  @ApiPropertyOptional({ description: 'Only this call (its x-arbor-call-id).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  request_id?: string;

  @ApiPropertyOptional({ description: "Only this project's calls (LiteLLM's team)." })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  team_id?: string;

  @ApiPropertyOptional({ description: "Only this end user's calls." })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  end_user?: string;

  @ApiPropertyOptional({ description: 'Only the calls of this alias.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  model?: string;

  @ApiPropertyOptional({ description: 'Only the calls carrying this tag.' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  tags?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  page_size?: number;

  @ApiPropertyOptional({ description: "Only the calls of this person's keys (the keys' user_id)." })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  user_id?: string;
}
