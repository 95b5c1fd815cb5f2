import { Omittable } from '@arbor/platform';
import { IsAliasList, IsMetadata, IsProjectSlug } from './key-fields';
import { KeySettingsDto } from './key-settings.dto';

/** Fields left out stay as they are; `null` clears the nullable ones. */
export class UpdateKeyDto extends KeySettingsDto {
  @Omittable()
  @IsProjectSlug()
  project?: string;

  @Omittable()
  @IsAliasList()
  aliases?: string[];

  @Omittable()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}
