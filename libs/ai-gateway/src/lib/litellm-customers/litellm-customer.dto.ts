import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsBudget, IsBudgetDuration, IsMetadata } from '../keys/dto/key-fields';

/** LiteLLM writes a customer's max_budget as a number or a decimal string ("0"). */
const numberFromDecimal = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value);

const IsEndUserId = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(256));

/** LiteLLM's customer fields without an equivalent here: refused unless at LiteLLM's default. */
export const UNSERVED_CUSTOMER_FIELDS = ['allowed_model_region', 'default_model', 'budget_id', 'tpm_limit', 'rpm_limit', 'model_max_budget', 'spend', 'object_permission'] as const;

export class CustomerFieldsDto {
  @ApiPropertyOptional({ example: 'Acme Inc.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  alias?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  blocked?: boolean;

  @ApiPropertyOptional({ type: Number, minimum: 0, example: 10, description: 'USD per budget period; null: none (spend is still counted).' })
  @IsOptional()
  @Transform(numberFromDecimal)
  @IsBudget()
  max_budget?: number | null;

  @ApiPropertyOptional({ example: '30d' })
  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown> | null;

  // Refused unless at LiteLLM's default (UNSERVED_CUSTOMER_FIELDS).
  @Allow() allowed_model_region?: unknown;
  @Allow() default_model?: unknown;
  @Allow() budget_id?: unknown;
  @Allow() tpm_limit?: unknown;
  @Allow() rpm_limit?: unknown;
  @Allow() model_max_budget?: unknown;
  @Allow() spend?: unknown;
  @Allow() object_permission?: unknown;
}

export class CustomerDto extends CustomerFieldsDto {
  @ApiProperty({ example: 'customer-42', description: "The end user's id: `user` of their calls (or x-arbor-end-user)." })
  @IsEndUserId()
  user_id!: string;
}

export class CustomerInfoQuery {
  @ApiProperty({ example: 'customer-42' })
  @IsEndUserId()
  end_user_id!: string;
}

export class CustomerIdsDto {
  @ApiProperty({ type: [String], example: ['customer-42'] })
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(256, { each: true })
  user_ids!: string[];
}
