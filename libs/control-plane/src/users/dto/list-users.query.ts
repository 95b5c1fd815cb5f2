import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength } from 'class-validator';

export const MAX_USERS_PER_PAGE = 500;

export class ListUsersQuery {
  @ApiPropertyOptional({ description: 'Only the user with exactly this email (case-insensitive).' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({ description: 'Users whose email or display name contains this text (case-insensitive).' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_USERS_PER_PAGE, default: 100, description: 'Users per page, oldest first.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_USERS_PER_PAGE)
  limit = 100;

  @ApiPropertyOptional({ format: 'uuid', description: 'The next page: users after this one (`next_after_id` of the previous page).' })
  @IsOptional()
  @IsUUID('all')
  after_id?: string;
}
