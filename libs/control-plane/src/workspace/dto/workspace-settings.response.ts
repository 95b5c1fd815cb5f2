import { ApiProperty } from '@nestjs/swagger';
import { Workspace } from '../workspace.entity';

/** Settings shared across the suite so that every product shows times, numbers and money alike. */
export class WorkspaceSettingsResponse {
  @ApiProperty({ example: 'Arbor Demo' })
  name!: string;

  @ApiProperty({ example: 'Europe/Berlin', description: 'IANA time zone.' })
  timezone!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'de-DE',
    description: "BCP 47 language tag in which every product UI writes numbers, money and dates; null: each person's browser language.",
  })
  locale!: string | null;

  static of(workspace: Workspace): WorkspaceSettingsResponse {
    return { name: workspace.name, timezone: workspace.timezone, locale: workspace.locale };
  }
}
