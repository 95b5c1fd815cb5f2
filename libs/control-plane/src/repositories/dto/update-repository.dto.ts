import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBranch, IsInstallationId, IsRepositoryName, IsRepositoryOwner, IsSourceHost } from './repository-fields';
import { Omittable } from '@arbor/platform';

/** Absent fields stay as they are. */
export class UpdateRepositoryDto {
  @ApiPropertyOptional({ example: 'github.com' })
  @Omittable()
  @IsSourceHost()
  source_host?: string;

  @ApiPropertyOptional({ example: 'arbor-demo' })
  @Omittable()
  @IsRepositoryOwner()
  owner?: string;

  @ApiPropertyOptional({ example: 'alpha-service' })
  @Omittable()
  @IsRepositoryName()
  name?: string;

  @ApiPropertyOptional({ example: 'release/2.1' })
  @Omittable()
  @IsBranch()
  branch?: string;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', pattern: '^[1-9][0-9]{0,19}$' },
      { type: 'integer', minimum: 1 },
    ],
    example: '4242',
  })
  @Omittable()
  @IsInstallationId()
  installation_id?: string;
}
