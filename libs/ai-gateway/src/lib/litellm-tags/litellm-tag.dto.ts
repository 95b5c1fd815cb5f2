import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsBudget, IsBudgetDuration } from '../keys/dto/key-fields';
import { IsDay } from '../litellm-keys/litellm-key.dto';

const IsTagName = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(256));

/** LiteLLM's tag fields without an equivalent here: refused unless at LiteLLM's default. */
export const UNSERVED_TAG_FIELDS = ['models', 'model_info', 'budget_id', 'tpm_limit', 'rpm_limit', 'soft_budget', 'max_parallel_requests'] as const;

export class TagDto {
  @ApiProperty({ example: 'engineering', description: 'The tag, as calls name it in metadata.tags (or x-arbor-tags).' })
  @IsTagName()
  name!: string;

  @ApiPropertyOptional({ example: 'Engineering department cost center' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ type: Number, minimum: 0, example: 500, description: 'USD per budget period of the calls carrying the tag; null: none.' })
  @IsOptional()
  @IsBudget()
  max_budget?: number | null;

  @ApiPropertyOptional({ example: '30d' })
  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;

  // Refused unless at LiteLLM's default (UNSERVED_TAG_FIELDS).
  @Allow() models?: unknown;
  @Allow() model_info?: unknown;
  @Allow() budget_id?: unknown;
  @Allow() tpm_limit?: unknown;
  @Allow() rpm_limit?: unknown;
  @Allow() soft_budget?: unknown;
  @Allow() max_parallel_requests?: unknown;
}

export class TagNamesDto {
  @ApiProperty({ type: [String], example: ['engineering'] })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(256, { each: true })
  names!: string[];
}

export class TagNameDto {
  @ApiProperty({ example: 'engineering' })
  @IsTagName()
  name!: string;
}

export class SpendTagsQuery {
  @ApiPropertyOptional({ format: 'date', example: '2026-11-01', description: 'First UTC day counted; absent: from the first.' })
  @IsOptional()
  @IsDay()
  start_date?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-30', description: 'Last UTC day counted; absent: to today.' })
  @IsOptional()
  @IsDay()
  end_date?: string;
}
