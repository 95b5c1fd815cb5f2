import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsIanaTimeZone } from '../iana-time-zone';
import { Omittable } from '@arbor/platform';

/** Absent fields stay as they are; an explicit null is refused. */
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
}
