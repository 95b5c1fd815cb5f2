import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { MachineOrAdmin } from '@arbor/auth';
import { RepositoryListResponse, RepositoryResponse } from './dto/repository.response';
import { RepositoriesService } from './repositories.service';

/** What products read: every repository of every project. */
@ApiTags('repositories')
@ApiBearerAuth()
@Controller('api/v1/repositories')
export class RepositoriesController {
  constructor(private readonly repositories: RepositoriesService) {}

  @Get()
  @MachineOrAdmin()
  @ApiOperation({ summary: 'Every repository of every project, with its project, branch and installation id' })
  @ApiOkResponse({ type: RepositoryListResponse })
  @ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
  @ApiForbiddenResponse({ description: 'The caller is neither a machine client nor an administrator.' })
  async listAll(): Promise<RepositoryListResponse> {
    return { repositories: (await this.repositories.listAll()).map((repository) => RepositoryResponse.of(repository)) };
  }
}
