import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@arbor/auth';
import { UserPermissionsResponse } from './dto/permissions.response';
import { ReplacePermissionsDto } from './dto/replace-permissions.dto';
import { PermissionGrants } from './permission-grants.service';
import { PermissionsUserMismatch } from './permissions.exception';
import { AdministrationApi } from '../openapi/administration-api.decorator';
import { UuidParam } from '@arbor/platform';

/** Grants administration; under /users by path, owned here with the rest of permissions. */
@ApiTags('permissions')
@ApiParam({ name: 'id', description: 'The control plane id of the user.', format: 'uuid' })
@ApiNotFoundResponse({ description: 'No such user (user_not_found).' })
@ApiBadRequestResponse({ description: 'invalid_request: the id is not a UUID.' })
@AdministrationApi()
@Controller('api/v1/users/:id/permissions')
export class PermissionGrantsController {
  constructor(private readonly grants: PermissionGrants) {}

  @Get()
  @ApiOperation({ summary: "A user's grants as stored (also while the user is disabled), grouped by project slug" })
  @ApiOkResponse({ type: UserPermissionsResponse })
  read(@Param('id', new UuidParam('id')) id: string): Promise<UserPermissionsResponse> {
    return this.grants.read(id);
  }

  @Put()
  @ApiOperation({
    summary: "Replaces a user's whole grant set",
    description:
      'Keys are `<product>` (sign-in) or `<product>.<role>` of a product listed by GET /api/v1/products; a role key counts for a product only together with its sign-in key. ' +
      'Audited as permissions.replaced.',
  })
  @ApiOkResponse({ type: UserPermissionsResponse, description: 'The grant set now stored.' })
  @ApiBadRequestResponse({
    description:
      'A malformed id or body (invalid_request), malformed keys or keys of unknown products or roles (unknown_permission_key, details.keys), slugs of no project (unknown_project, details.slugs).',
  })
  replace(@Param('id', new UuidParam('id')) id: string, @Body() body: ReplacePermissionsDto, @CurrentPrincipal() actor: Principal): Promise<UserPermissionsResponse> {
    if (body.user_id !== undefined && body.user_id.toLowerCase() !== id.toLowerCase()) throw new PermissionsUserMismatch(id, body.user_id);
    return this.grants.replace(actor, id, { workspace: body.workspace, projects: body.projects });
  }
}
