import { Body, Controller, Delete, Get, Header, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiInternalServerErrorResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal, MachineOrAdmin, Principal } from '@arbor/auth';
import { ReplaceRepositorySecretDto } from './dto/replace-repository-secret.dto';
import { RepositorySecretStateResponse, RepositorySecretValueResponse } from './dto/repository-secret.response';
import { RepositorySecretService } from './repository-secret.service';
import { UuidParam } from '@arbor/platform';

@ApiTags('repository-secret')
@ApiBearerAuth()
@ApiParam({ name: 'id', format: 'uuid', description: 'The project id.' })
@ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
@ApiBadRequestResponse({ description: 'invalid_request: the id is not a UUID, or the body is bad.' })
@Controller('api/v1/projects/:id/repository-secret')
export class RepositorySecretController {
  constructor(private readonly secrets: RepositorySecretService) {}

  @Get('value')
  @MachineOrAdmin()
  @Header('cache-control', 'no-store')
  @ApiOperation({ summary: "The project's decrypted repository token; every read is audited" })
  @ApiOkResponse({ type: RepositorySecretValueResponse })
  @ApiForbiddenResponse({ description: 'The caller is neither a machine client nor an administrator.' })
  @ApiNotFoundResponse({ description: 'project_not_found, or repository_secret_not_found when the project has no token.' })
  @ApiInternalServerErrorResponse({ description: 'master_key_missing: the token is under a master key that is not configured (docs/operations.md).' })
  async value(@CurrentPrincipal() actor: Principal, @Param('id', new UuidParam('id')) projectId: string): Promise<RepositorySecretValueResponse> {
    return RepositorySecretValueResponse.of(await this.secrets.read(actor, projectId));
  }

  @Get()
  @AdminOnly()
  @ApiOperation({ summary: 'Whether the project has a repository token, and since when (never the token)' })
  @ApiOkResponse({ type: RepositorySecretStateResponse })
  @ApiForbiddenResponse({ description: 'The caller is not an administrator.' })
  @ApiNotFoundResponse({ description: 'project_not_found.' })
  async state(@Param('id', new UuidParam('id')) projectId: string): Promise<RepositorySecretStateResponse> {
    return RepositorySecretStateResponse.of(await this.secrets.state(projectId));
  }

  @Put()
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ summary: "Set or replace the project's repository token; products hear of the project" })
  @ApiNoContentResponse({ description: 'Stored, encrypted under the current master key.' })
  @ApiForbiddenResponse({ description: 'The caller is not an administrator.' })
  @ApiNotFoundResponse({ description: 'project_not_found.' })
  async replace(@CurrentPrincipal() actor: Principal, @Param('id', new UuidParam('id')) projectId: string, @Body() body: ReplaceRepositorySecretDto): Promise<void> {
    await this.secrets.replace(actor, projectId, body.value);
  }

  @Delete()
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ summary: "Remove the project's repository token; products hear of the project" })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiForbiddenResponse({ description: 'The caller is not an administrator.' })
  @ApiNotFoundResponse({ description: 'project_not_found, or repository_secret_not_found when the project has no token.' })
  async remove(@CurrentPrincipal() actor: Principal, @Param('id', new UuidParam('id')) projectId: string): Promise<void> {
    await this.secrets.remove(actor, projectId);
  }
}
