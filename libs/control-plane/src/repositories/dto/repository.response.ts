import { ApiProperty } from '@nestjs/swagger';
import { RepositoryView } from '../repositories.service';

export class RepositoryResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ example: 'alpha' })
  project_slug!: string;

  @ApiProperty({ example: 'github.com' })
  source_host!: string;

  @ApiProperty({ example: 'arbor-demo' })
  owner!: string;

  @ApiProperty({ example: 'alpha-service' })
  name!: string;

  @ApiProperty({ example: 'github.com/arbor-demo/alpha-service', description: '`source_host/owner/name`.' })
  full_name!: string;

  @ApiProperty({ example: 'main' })
  branch!: string;

  @ApiProperty({ example: '4242', description: 'Installation id of the source-host app (digits, as a string).' })
  installation_id!: string;

  static of(repository: RepositoryView): RepositoryResponse {
    return {
      id: repository.id,
      project_id: repository.projectId,
      project_slug: repository.projectSlug,
      source_host: repository.sourceHost,
      owner: repository.owner,
      name: repository.name,
      full_name: repository.fullName,
      branch: repository.branch,
      installation_id: repository.installationId,
    };
  }
}

export class RepositoryListResponse {
  @ApiProperty({ type: [RepositoryResponse], description: 'Ordered by project slug, then full name.' })
  repositories!: RepositoryResponse[];

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Pass as after_id for the next page; null on the last page.' })
  next_after_id!: string | null;
}
