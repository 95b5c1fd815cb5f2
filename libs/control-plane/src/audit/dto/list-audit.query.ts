import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';

export const MAX_AUDIT_ENTRIES_PER_PAGE = 200;

export class ListAuditQuery {
  @ApiPropertyOptional({ example: 'project.created', description: 'Only this action, or every action under a prefix ending in a dot (`project.`).' })
  @IsOptional()
  @Matches(/^[a-z0-9_.-]{1,100}$/, { message: 'action must be an action such as project.created or a prefix such as project.' })
  action?: string;

  @ApiPropertyOptional({ description: "Only what this actor did (the caller's OIDC subject)." })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  actor_subject?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only entries about this project.' })
  @IsOptional()
  @IsUUID('all')
  project_id?: string;

  @ApiPropertyOptional({ description: 'Only entries about this target (a user, repository, delivery… id).' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  target_id?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_AUDIT_ENTRIES_PER_PAGE, default: 50, description: 'Entries per page, newest first.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_AUDIT_ENTRIES_PER_PAGE)
  limit = 50;

  @ApiPropertyOptional({ example: '1042', description: 'The next page: entries older than this id (`next_before_id` of the previous page).' })
  @IsOptional()
  @Matches(/^[0-9]{1,19}$/, { message: 'before_id must be an audit entry id' })
  before_id?: string;
}
