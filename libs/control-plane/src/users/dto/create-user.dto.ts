import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsOptional, IsString, MaxLength } from 'class-validator';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** Pre-creates a user by email; their first sign-in with that email claims the record. */
export class CreateUserDto {
  @ApiProperty({ example: 'carol@arbor.local', description: 'Stored lower-cased; must not belong to another user.' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @ApiPropertyOptional({ example: 'Carol' })
  @Transform(trimmed)
  @IsOptional()
  @IsString()
  @MaxLength(200)
  display_name?: string;

  @ApiPropertyOptional({ default: false, description: 'Administrator of the control plane.' })
  @IsOptional()
  @IsBoolean()
  admin?: boolean;
}
