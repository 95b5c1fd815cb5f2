import { ApiProperty } from '@nestjs/swagger';
import type { GroupedPermissionsView, SinglePermissionsView } from '@arbor/contract';

const KEYS_BY_SLUG = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string' } },
  example: { alpha: ['ai-gateway.operator', 'mcp-gateway.operator'], beta: ['ai-gateway.viewer'] },
} as const;

/** The contract's single view (`@arbor/contract`), documented for OpenAPI. */
export class SinglePermissionsResponse implements SinglePermissionsView {
  @ApiProperty({ format: 'uuid' })
  user_id!: string;

  @ApiProperty({
    type: [String],
    example: ['ai-gateway', 'ai-gateway.operator', 'mcp-gateway'],
    description: 'Workspace keys, plus the keys on the project asked for; sorted. Empty for a disabled user.',
  })
  permissions!: string[];
}

/** The contract's grouped view (`@arbor/contract`), documented for OpenAPI. */
export class GroupedPermissionsResponse implements GroupedPermissionsView {
  @ApiProperty({ format: 'uuid' })
  user_id!: string;

  @ApiProperty({ type: [String], example: ['ai-gateway', 'mcp-gateway'], description: 'Workspace-level keys, sorted.' })
  workspace!: string[];

  @ApiProperty({
    ...KEYS_BY_SLUG,
    description: 'By project slug, the keys granted on that project (workspace keys not repeated). Projects without keys are left out.',
  })
  projects!: Record<string, string[]>;
}

/** The grant set of a user as stored (a disabled user's grants included), in the grouped shape. */
export class UserPermissionsResponse extends GroupedPermissionsResponse {}
