import { ApiPropertyOptional } from '@nestjs/swagger';
import { Omittable } from '@arbor/platform';
import { IsOptional } from 'class-validator';
import { IsAliasList, IsGuardrailList, IsKeyAlias, IsMetadata, IsProjectSlug } from './key-fields';
import { KeySettingsDto } from './key-settings.dto';

/** Fields left out stay as they are; `null` clears the nullable ones. */
export class UpdateKeyDto extends KeySettingsDto {
  @ApiPropertyOptional({ example: 'alpha', pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$' })
  @Omittable()
  @IsProjectSlug()
  project?: string;

  @ApiPropertyOptional({ type: [String], example: ['gpt-4o-mini'], maxItems: 1000 })
  @Omittable()
  @IsAliasList()
  aliases?: string[];

  @ApiPropertyOptional({ type: [String], example: ['pii-mask'], maxItems: 100 })
  @Omittable()
  @IsGuardrailList()
  guardrails?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { team: 'search' } })
  @Omittable()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'search-backend', maxLength: 200 })
  @IsOptional()
  @IsKeyAlias()
  key_alias?: string | null;
}
