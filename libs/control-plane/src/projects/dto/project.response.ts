import { ApiProperty } from '@nestjs/swagger';
import { ProjectView } from '../projects.service';

export class ProjectResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'alpha' })
  slug!: string;

  @ApiProperty({ example: 'Alpha' })
  name!: string;

  @ApiProperty({ example: 1, description: 'How many repositories the project has.' })
  repository_count!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(project: ProjectView): ProjectResponse {
    return {
      id: project.id,
      slug: project.slug,
      name: project.name,
      repository_count: project.repositoryCount,
      created_at: project.createdAt.toISOString(),
      updated_at: project.updatedAt.toISOString(),
    };
  }
}

export class ProjectListResponse {
  @ApiProperty({ type: [ProjectResponse], description: 'Ordered by slug.' })
  projects!: ProjectResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as after_slug for the next page; null on the last page.' })
  next_after_slug!: string | null;
}
