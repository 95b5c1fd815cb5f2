import { ApiProperty } from '@nestjs/swagger';
import { Workspace } from '../workspace.entity';

/** Settings shared across the suite so that every product shows times alike. */
export class WorkspaceSettingsResponse {
  @ApiProperty({ example: 'Arbor Demo' })
  name!: string;

  @ApiProperty({ example: 'Europe/Berlin', description: 'IANA time zone.' })
  timezone!: string;

  static of(workspace: Workspace): WorkspaceSettingsResponse {
    return { name: workspace.name, timezone: workspace.timezone };
  }
}
