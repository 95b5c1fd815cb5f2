import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

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
}
