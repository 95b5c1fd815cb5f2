import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { IsISO8601, IsOptional, Matches } from 'class-validator';
import { IsProjectSlug } from '../keys/dto/key-fields';

const IsDay = () => applyDecorators(IsISO8601({ strict: true }), Matches(/^\d{4}-\d{2}-\d{2}$/, { message: '$property must be a date: YYYY-MM-DD' }));

/** Optional day range, both ends included (UTC days, as spend_daily counts them). */
export class SpendRangeQuery {
  @ApiPropertyOptional({ format: 'date', example: '2026-11-01' })
  @IsOptional()
  @IsDay()
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-30' })
  @IsOptional()
  @IsDay()
  to?: string;
}

export class ProjectSpendQuery extends SpendRangeQuery {
  @ApiProperty({ example: 'alpha' })
  @IsProjectSlug()
  project!: string;
}
