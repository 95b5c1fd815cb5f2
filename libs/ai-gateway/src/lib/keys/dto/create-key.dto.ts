import { IsOptional } from 'class-validator';
import { IsAliasList, IsMetadata, IsProjectSlug } from './key-fields';
import { KeySettingsDto } from './key-settings.dto';

export class CreateKeyDto extends KeySettingsDto {
  @IsProjectSlug()
  project!: string;

  /** Empty or absent: every alias. */
  @IsOptional()
  @IsAliasList()
  aliases?: string[];

  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}
