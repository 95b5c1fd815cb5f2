import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@arbor/auth';
import { CreateRepositoryDto } from './dto/create-repository.dto';
import { ListRepositoriesQuery } from './dto/list-repositories.query';
import { RepositoryListResponse, RepositoryResponse } from './dto/repository.response';
import { UpdateRepositoryDto } from './dto/update-repository.dto';
import { RepositoriesService } from './repositories.service';
import { AdministrationApi } from '../openapi/administration-api.decorator';
import { UuidParam } from '@arbor/platform';

/** Administration of one project's repositories. */
@ApiTags('repositories')
@ApiParam({ name: 'id', format: 'uuid', description: 'The project id.' })
@ApiNotFoundResponse({ description: 'project_not_found, or repository_not_found for a repository id not in this project.' })
@AdministrationApi()
@Controller('api/v1/projects/:id/repositories')
export class ProjectRepositoriesController {
  constructor(private readonly repositories: RepositoriesService) {}

  @Get()
  @ApiOperation({ summary: "A project's repositories, ordered by full name, a page at a time" })
  @ApiOkResponse({ type: RepositoryListResponse })
  @ApiBadRequestResponse({ description: 'invalid_request: the id is not a UUID, or a bad limit or after_id.' })
  async list(@Param('id', new UuidParam('id')) projectId: string, @Query() query: ListRepositoriesQuery): Promise<RepositoryListResponse> {
    const page = await this.repositories.listForProject(projectId, { limit: query.limit, afterId: query.after_id });
    return { repositories: page.repositories.map((repository) => RepositoryResponse.of(repository)), next_after_id: page.nextAfterId };
  }

  @Post()
  @ApiOperation({ summary: 'Add a repository; products hear of the project' })
  @ApiCreatedResponse({ type: RepositoryResponse })
  @ApiBadRequestResponse({ description: 'invalid_request: a bad id or body, naming each bad field.' })
  @ApiConflictResponse({ description: 'repository_exists: the project already has this host/owner/name (case-insensitive).' })
  async add(@CurrentPrincipal() actor: Principal, @Param('id', new UuidParam('id')) projectId: string, @Body() body: CreateRepositoryDto): Promise<RepositoryResponse> {
    const repository = await this.repositories.add(actor, projectId, {
      sourceHost: body.source_host,
      owner: body.owner,
      name: body.name,
      branch: body.branch,
      installationId: body.installation_id,
    });
    return RepositoryResponse.of(repository);
  }

  @Patch(':repoId')
  @ApiOperation({ summary: 'Change some fields of a repository; products hear of the project' })
  @ApiParam({ name: 'repoId', format: 'uuid' })
  @ApiOkResponse({ type: RepositoryResponse })
  @ApiBadRequestResponse({ description: 'invalid_request: a bad id or body, naming each bad field.' })
  @ApiConflictResponse({ description: 'repository_exists: the change would duplicate another repository of the project.' })
  async update(
    @CurrentPrincipal() actor: Principal,
    @Param('id', new UuidParam('id')) projectId: string,
    @Param('repoId', new UuidParam('repoId')) repositoryId: string,
    @Body() body: UpdateRepositoryDto,
  ): Promise<RepositoryResponse> {
    const repository = await this.repositories.update(actor, projectId, repositoryId, {
      sourceHost: body.source_host,
      owner: body.owner,
      name: body.name,
      branch: body.branch,
      installationId: body.installation_id,
    });
    return RepositoryResponse.of(repository);
  }

  @Delete(':repoId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a repository; products hear of the project' })
  @ApiParam({ name: 'repoId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiBadRequestResponse({ description: 'invalid_request: an id is not a UUID.' })
  async remove(
    @CurrentPrincipal() actor: Principal,
    @Param('id', new UuidParam('id')) projectId: string,
    @Param('repoId', new UuidParam('repoId')) repositoryId: string,
  ): Promise<void> {
    await this.repositories.remove(actor, projectId, repositoryId);
  }
}
