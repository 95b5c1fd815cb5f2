import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { IsAliasList, IsGuardrailList, IsKeyAlias, IsMetadata, IsProjectSlug } from './key-fields';
import { KeySettingsDto } from './key-settings.dto';

export class CreateKeyDto extends KeySettingsDto {
  @ApiProperty({ example: 'alpha', pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', description: 'The project whose budget and spend the key counts against.' })
  @IsProjectSlug()
  project!: string;

  @ApiPropertyOptional({
    example: 'github.com/acme/payments',
    description:
      "Scopes the key to one repository of its project (a CI bot's key), by the control plane's full name; checked against GET /api/v1/repositories. Spend reports group by it.",
  })
  @IsOptional()
  @IsString()
  @Matches(/^[^\s/]+\/[^\s/]+\/[^\s/]+$/, { message: 'repository must be a full name like github.com/owner/name' })
  repository?: string;

  /** Empty or absent: every alias. */
  @ApiPropertyOptional({ type: [String], example: ['gpt-4o-mini'], maxItems: 1000, description: 'Aliases the key may call; empty or absent: every alias.' })
  @IsOptional()
  @IsAliasList()
  aliases?: string[];

  @ApiPropertyOptional({
    type: [String],
    example: ['pii-mask'],
    maxItems: 100,
    description: "Guardrails of the gateway's config (its guardrails: list) that run on every call of the key, whatever the call names.",
  })
  @IsOptional()
  @IsGuardrailList()
  guardrails?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { team: 'search' }, description: 'Free-form labels, shown in spend reports.' })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'search-backend',
    maxLength: 200,
    description: "LiteLLM's key_alias: a unique name to find the key by; null or absent: none.",
  })
  @IsOptional()
  @IsKeyAlias()
  key_alias?: string | null;
}
