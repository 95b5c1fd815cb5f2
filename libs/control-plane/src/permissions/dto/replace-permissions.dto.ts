import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, IsUUID, ValidateBy, ValidationOptions } from 'class-validator';

const MAX_KEYS = 200;
const MAX_PROJECTS = 10_000;

/** An object whose every value is an array of at most MAX_KEYS strings. */
function IsKeyListsBySlug(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isKeyListsBySlug',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length <= MAX_PROJECTS &&
          Object.values(value).every((keys) => Array.isArray(keys) && keys.length <= MAX_KEYS && keys.every((key) => typeof key === 'string')),
        defaultMessage: () => `projects must map project slugs to arrays of at most ${MAX_KEYS} permission keys`,
      },
    },
    options,
  );
}

/** PUT /api/v1/users/{id}/permissions: the user's whole grant set, replacing what they had. */
export class ReplacePermissionsDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'As GET answers it, so a read-modify-write sends the body back unchanged; when given it must be the id in the path.',
  })
  @IsOptional()
  @IsUUID('all')
  user_id?: string;

  @ApiProperty({ type: [String], example: ['ai-gateway', 'mcp-gateway'], description: 'Workspace-level keys.' })
  @IsArray()
  @ArrayMaxSize(MAX_KEYS)
  @IsString({ each: true })
  workspace!: string[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { alpha: ['ai-gateway.operator'], beta: ['ai-gateway.viewer'] },
    description: 'By project slug, the keys on that project. Every slug must name an existing project.',
  })
  @IsObject()
  @IsKeyListsBySlug()
  projects!: Record<string, string[]>;
}
