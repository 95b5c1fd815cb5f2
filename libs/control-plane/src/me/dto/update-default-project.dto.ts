import { ApiProperty } from '@nestjs/swagger';
import { IsUUID, ValidateIf } from 'class-validator';

export class UpdateDefaultProjectDto {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A project the person may see (administrators and holders of a workspace-level role key: any project; others: one listed in their permissions); null clears it.',
  })
  // Required: null clears, a missing field is a mistake.
  @ValidateIf((_object, value) => value !== null)
  @IsUUID('all')
  project_id!: string | null;
}
