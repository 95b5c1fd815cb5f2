import { ApiProperty } from '@nestjs/swagger';
import { IsProjectName, IsProjectSlug, PROJECT_NAME_MAX_LENGTH } from './project-fields';

export class CreateProjectDto {
  @ApiProperty({ example: 'alpha', pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', description: 'Unique; what products key their data by.' })
  @IsProjectSlug()
  slug!: string;

  @ApiProperty({ example: 'Alpha', maxLength: PROJECT_NAME_MAX_LENGTH, description: 'Trimmed; not blank.' })
  @IsProjectName()
  name!: string;
}
