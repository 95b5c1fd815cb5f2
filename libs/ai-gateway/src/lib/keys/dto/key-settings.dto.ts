import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsBudget, IsBudgetDuration, IsExpiry, IsLimit, IsModelBudgets, IsModelLimits, IsUserId } from './key-fields';

/** The nullable settings a key is created with and updated by: absent keeps, `null` clears. */
export class KeySettingsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 128,
    example: '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
    description:
      "The person the key is for (LiteLLM's user_id): a control-plane user with a role on the key's project. Their budget in the project (/team/member_update) applies to the key's calls.",
  })
  @IsOptional()
  @IsUserId()
  user_id?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsExpiry()
  expires_at?: string | null;

  @ApiPropertyOptional({ type: Number, minimum: 0, nullable: true, example: 25, description: 'USD per budget period.' })
  @IsOptional()
  @IsBudget()
  max_budget?: number | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '30d', pattern: '^[1-9][0-9]{0,5}(s|m|h|d|mo)$' })
  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true, example: 60 })
  @IsOptional()
  @IsLimit()
  rpm_limit?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true, example: 100000 })
  @IsOptional()
  @IsLimit()
  tpm_limit?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, nullable: true, example: 4 })
  @IsOptional()
  @IsLimit()
  max_parallel_requests?: number | null;

  @ApiPropertyOptional({
    type: Number,
    minimum: 0,
    nullable: true,
    example: 20,
    description: "LiteLLM's soft_budget: reaching it in the budget period raises an alert (log, /metrics); it refuses nothing.",
  })
  @IsOptional()
  @IsBudget()
  soft_budget?: number | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { 'gpt-4o': { budget_limit: 10, time_period: '1d' } },
    description: "LiteLLM's model_max_budget: a budget per alias the key calls (USD, and its period); null or {}: none.",
  })
  @IsOptional()
  @IsModelBudgets()
  model_max_budget?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    nullable: true,
    example: { 'gpt-4o': 10 },
    description: "LiteLLM's model_rpm_limit: requests per minute the key may make to each alias named; null or {}: none.",
  })
  @IsOptional()
  @IsModelLimits()
  model_rpm_limit?: Record<string, number> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    nullable: true,
    example: { 'gpt-4o': 100000 },
    description: "LiteLLM's model_tpm_limit: tokens per minute the key may use on each alias named; null or {}: none.",
  })
  @IsOptional()
  @IsModelLimits()
  model_tpm_limit?: Record<string, number> | null;
}
