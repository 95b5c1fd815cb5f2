import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

export const MAX_REPOSITORIES_PER_PAGE = 500;

export class ListRepositoriesQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_REPOSITORIES_PER_PAGE, default: 100, description: 'Repositories per page, by project slug then full name.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_REPOSITORIES_PER_PAGE)
  limit = 100;

  @ApiPropertyOptional({ format: 'uuid', description: 'The next page: repositories after this one (`next_after_id` of the previous page).' })
  @IsOptional()
  @IsUUID('all')
  after_id?: string;
}
