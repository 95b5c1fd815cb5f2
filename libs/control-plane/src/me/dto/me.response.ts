import { ApiProperty } from '@nestjs/swagger';
import { THEMES, Theme } from '../../users/user.entity';

export class DefaultProjectResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'alpha' })
  slug!: string;

  @ApiProperty({ example: 'Alpha' })
  name!: string;
}

export class MyPermissionsResponse {
  @ApiProperty({ type: [String], example: ['ai-gateway', 'mcp-gateway'], description: 'Workspace-level keys.' })
  workspace!: string[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { alpha: ['ai-gateway', 'ai-gateway.operator'] },
    description: 'Project slug → permission keys, as GET /api/v1/permissions/effective?group=projects answers.',
  })
  projects!: Record<string, string[]>;
}

/** The signed-in person as every product UI's shell needs them. */
export class MeResponse {
  @ApiProperty({ format: 'uuid', description: 'The control plane user id (user_id elsewhere).' })
  id!: string;

  @ApiProperty({ description: 'The OIDC subject.' })
  subject!: string;

  @ApiProperty({ type: String, nullable: true, example: 'alice@arbor.local' })
  email!: string | null;

  @ApiProperty({ example: 'Alice Anderson' })
  display_name!: string;

  @ApiProperty({ description: 'Holds the realm role control-plane-admin, or was made administrator in the control plane (and is not disabled).' })
  admin!: boolean;

  @ApiProperty({ description: 'A disabled person has no permissions and may change nothing; the UI should say so.' })
  disabled!: boolean;

  @ApiProperty({ enum: THEMES })
  theme!: Theme;

  @ApiProperty({
    type: DefaultProjectResponse,
    nullable: true,
    description: 'The selected project; null when none is set or the person may no longer see it.',
  })
  default_project!: DefaultProjectResponse | null;

  @ApiProperty({ type: MyPermissionsResponse, description: 'Empty for a disabled person.' })
  permissions!: MyPermissionsResponse;
}

export class MyProjectResponse extends DefaultProjectResponse {
  @ApiProperty({
    type: [String],
    example: ['ai-gateway', 'ai-gateway.operator'],
    description: 'The keys granted to the person on this project (workspace keys are not repeated here).',
  })
  permissions!: string[];
}

export class MyProjectListResponse {
  @ApiProperty({ type: [MyProjectResponse], description: 'Ordered by slug.' })
  projects!: MyProjectResponse[];
}
