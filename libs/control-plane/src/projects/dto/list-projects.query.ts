import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

export const MAX_PROJECTS_PER_PAGE = 500;

export class ListProjectsQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PROJECTS_PER_PAGE, default: 100, description: 'Projects per page, by slug.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PROJECTS_PER_PAGE)
  limit = 100;

  @ApiPropertyOptional({ example: 'alpha', description: 'The next page: projects after this slug (`next_after_slug` of the previous page).' })
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9-]{0,63}$/, { message: 'after_slug must be a project slug' })
  after_slug?: string;

  @ApiPropertyOptional({ example: 'alpha', description: 'Only the project with this slug (none or one): how a product finds a project by slug.' })
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9-]{0,63}$/, { message: 'slug must be a project slug' })
  slug?: string;
}
