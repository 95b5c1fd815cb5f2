import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { MachineOrAdmin } from '@arbor/auth';
import { ListRepositoriesQuery } from './dto/list-repositories.query';
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
  @ApiOperation({ summary: 'Every repository of every project, with its project, branch and installation id, a page at a time' })
  @ApiOkResponse({ type: RepositoryListResponse })
  @ApiBadRequestResponse({ description: '`invalid_request`: a bad limit or after_id.' })
  @ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
  @ApiForbiddenResponse({ description: 'The caller is neither a machine client nor an administrator.' })
  async listAll(@Query() query: ListRepositoriesQuery): Promise<RepositoryListResponse> {
    const page = await this.repositories.listAll({ limit: query.limit, afterId: query.after_id });
    return { repositories: page.repositories.map((repository) => RepositoryResponse.of(repository)), next_after_id: page.nextAfterId };
  }
}
