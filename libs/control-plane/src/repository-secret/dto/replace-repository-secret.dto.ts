import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';

export const REPOSITORY_SECRET_MAX_LENGTH = 4096;

// No control characters (a pasted trailing newline breaks git authentication) and no blank ends.
const TOKEN_TEXT = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;

/** Validation messages name the field, never echo the value. */
export class ReplaceRepositorySecretDto {
  @ApiProperty({
    writeOnly: true,
    minLength: 1,
    maxLength: REPOSITORY_SECRET_MAX_LENGTH,
    example: 'ghs_demoAlphaToken0001',
    description: 'The repository token; stored encrypted.',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(REPOSITORY_SECRET_MAX_LENGTH)
  @Matches(TOKEN_TEXT, { message: '$property must not contain control characters or start or end with whitespace' })
  value!: string;
}
