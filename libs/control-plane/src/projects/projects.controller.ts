import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { CurrentPrincipal, MachineOrAdmin, Principal } from '@arbor/auth';
import { CreateProjectDto } from './dto/create-project.dto';
import { ListProjectsQuery } from './dto/list-projects.query';
import { ProjectListResponse, ProjectResponse } from './dto/project.response';
import { UpdateProjectDto } from './dto/update-project.dto';
import { ProjectsService } from './projects.service';
import { AdministrationApi } from '../openapi/administration-api.decorator';
import { UuidParam } from '@arbor/platform';

@ApiTags('projects')
@Controller('api/v1/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @ProductReadApi()
  @ApiOperation({ summary: 'The projects, ordered by slug, a page at a time (administrators, and products re-reading projects after a sync)' })
  @ApiOkResponse({ type: ProjectListResponse })
  @ApiBadRequestResponse({ description: '`invalid_request`: a bad limit, after_slug or slug.' })
  async list(@Query() query: ListProjectsQuery): Promise<ProjectListResponse> {
    const page = await this.projects.list({ limit: query.limit, afterSlug: query.after_slug, slug: query.slug });
    return { projects: page.projects.map((project) => ProjectResponse.of(project)), next_after_slug: page.nextAfterSlug };
  }

  @Post()
  @AdministrationApi()
  @ApiOperation({ summary: 'Create a project; products hear of its slug' })
  @ApiCreatedResponse({ type: ProjectResponse })
  @ApiBadRequestResponse({ description: 'invalid_request: the body names a bad slug or name.' })
  @ApiConflictResponse({ description: 'project_slug_taken: another project has the slug.' })
  async create(@CurrentPrincipal() actor: Principal, @Body() body: CreateProjectDto): Promise<ProjectResponse> {
    return ProjectResponse.of(await this.projects.create(actor, { slug: body.slug, name: body.name }));
  }

  @Get(':id')
  @ProductReadApi()
  @ApiOperation({ summary: 'One project' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: ProjectResponse })
  @ApiBadRequestResponse({ description: 'invalid_request: the id is not a UUID.' })
  @ApiNotFoundResponse({ description: 'project_not_found.' })
  async get(@Param('id', new UuidParam('id')) id: string): Promise<ProjectResponse> {
    return ProjectResponse.of(await this.projects.get(id));
  }

  @Patch(':id')
  @AdministrationApi()
  @ApiOperation({ summary: 'Change the name or the slug (a rename: products hear of both slugs)' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: ProjectResponse })
  @ApiBadRequestResponse({ description: 'invalid_request: a bad id, slug or name.' })
  @ApiNotFoundResponse({ description: 'project_not_found.' })
  @ApiConflictResponse({ description: 'project_slug_taken: another project has the new slug.' })
  async update(@CurrentPrincipal() actor: Principal, @Param('id', new UuidParam('id')) id: string, @Body() body: UpdateProjectDto): Promise<ProjectResponse> {
    return ProjectResponse.of(await this.projects.update(actor, id, { slug: body.slug, name: body.name }));
  }

  @Delete(':id')
  @AdministrationApi()
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a project with its repositories, repository token and grants' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted; products hear of its slug.' })
  @ApiBadRequestResponse({ description: 'invalid_request: the id is not a UUID.' })
  @ApiNotFoundResponse({ description: 'project_not_found.' })
  async remove(@CurrentPrincipal() actor: Principal, @Param('id', new UuidParam('id')) id: string): Promise<void> {
    await this.projects.remove(actor, id);
  }
}

/** A read products make too (their machine clients), as they do of repositories. */
function ProductReadApi(): MethodDecorator {
  return applyDecorators(
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'No valid bearer token.' }),
    ApiForbiddenResponse({ description: 'The caller is neither a machine client nor an administrator.' }),
    MachineOrAdmin(),
  );
}
