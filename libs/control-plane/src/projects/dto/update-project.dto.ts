import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsProjectName, IsProjectSlug, PROJECT_NAME_MAX_LENGTH } from './project-fields';
import { Omittable } from '@arbor/platform';

/** Absent fields stay as they are; a new slug renames the project. */
export class UpdateProjectDto {
  @ApiPropertyOptional({ example: 'alpha-2', pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', description: 'A new slug renames the project; products hear of both slugs.' })
  @Omittable()
  @IsProjectSlug()
  slug?: string;

  @ApiPropertyOptional({ example: 'Alpha', maxLength: PROJECT_NAME_MAX_LENGTH })
  @Omittable()
  @IsProjectName()
  name?: string;
}
