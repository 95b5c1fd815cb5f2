import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsAliasList, IsMetadata, IsProjectSlug } from './key-fields';
import { KeySettingsDto } from './key-settings.dto';

export class CreateKeyDto extends KeySettingsDto {
  @ApiProperty({ example: 'alpha', pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', description: 'The project whose budget and spend the key counts against.' })
  @IsProjectSlug()
  project!: string;

  /** Empty or absent: every alias. */
  @ApiPropertyOptional({ type: [String], example: ['gpt-4o-mini'], maxItems: 1000, description: 'Aliases the key may call; empty or absent: every alias.' })
  @IsOptional()
  @IsAliasList()
  aliases?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { team: 'search' }, description: 'Free-form labels, shown in spend reports.' })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown>;
}
