import { ApiProperty } from '@nestjs/swagger';
import { IsBranch, IsInstallationId, IsRepositoryName, IsRepositoryOwner, IsSourceHost } from './repository-fields';

export class CreateRepositoryDto {
  @ApiProperty({ example: 'github.com', description: 'Host name of the source host; stored lower-cased.' })
  @IsSourceHost()
  source_host!: string;

  @ApiProperty({ example: 'arbor-demo', description: "User or organisation, by GitHub's naming rules." })
  @IsRepositoryOwner()
  owner!: string;

  @ApiProperty({ example: 'alpha-service', description: "Repository name, by GitHub's naming rules, without `.git`." })
  @IsRepositoryName()
  name!: string;

  @ApiProperty({ example: 'main', description: 'A valid git branch name.' })
  @IsBranch()
  branch!: string;

  @ApiProperty({
    oneOf: [
      { type: 'string', pattern: '^[1-9][0-9]{0,19}$' },
      { type: 'integer', minimum: 1 },
    ],
    example: '4242',
    description: 'Installation id of the source-host app; answered as a string.',
  })
  @IsInstallationId()
  installation_id!: string;
}
