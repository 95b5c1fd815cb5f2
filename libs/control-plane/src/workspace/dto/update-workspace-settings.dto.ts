import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';
import { IsLanguageTag } from '../language-tag';
import { IsIanaTimeZone } from '../iana-time-zone';
import { Omittable } from '@arbor/platform';

/** Absent fields stay as they are; an explicit null is refused, except for locale (back to the browser's). */
export class UpdateWorkspaceSettingsDto {
  @ApiPropertyOptional({ example: 'Arbor Demo', maxLength: 200 })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @Omittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 'Europe/Berlin', description: 'An IANA time zone name (UTC included).' })
  @Omittable()
  @IsIanaTimeZone()
  timezone?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'de-DE',
    description: "A BCP 47 language tag (stored canonical: de-de → de-DE); null: each person's browser language.",
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsLanguageTag()
  locale?: string | null;
}
