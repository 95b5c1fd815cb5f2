import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';

/** What an administrator may change on a user; absent fields stay as they are. */
export class UpdateUserDto {
  @ApiPropertyOptional({ description: 'A disabled user keeps their grants but gets an empty permission set.' })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;

  @ApiPropertyOptional({ description: 'Administrator of the control plane (is_admin).' })
  @IsOptional()
  @IsBoolean()
  admin?: boolean;

  @ApiPropertyOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsOptional()
  @IsString()
  @MaxLength(200)
  display_name?: string;
}
