import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
  ApiTags,
  ApiUnauthorizedResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Principal } from '@arbor/auth';
import type { Request, Response } from 'express';
import { GroupedPermissionsResponse, SinglePermissionsResponse } from './dto/permissions.response';
import { parseEffectivePermissionsQuery } from './effective-permissions.query';
import { EffectivePermissionsService } from './effective-permissions.service';
import { ifNoneMatchMatches } from './entity-tag';

/** The contract's cache lifetime of effective permissions. */
const CACHE_CONTROL = 'private, max-age=60';

@ApiTags('permissions')
@ApiBearerAuth()
@ApiExtraModels(SinglePermissionsResponse, GroupedPermissionsResponse)
@Controller('api/v1/permissions')
export class EffectivePermissionsController {
  constructor(private readonly effective: EffectivePermissionsService) {}

  /**
   * Every product's check before it acts, so the hot path: the query is read by hand, the answer
   * comes from the in-process cache with its body already serialised, and a matching
   * If-None-Match answers 304 without a body.
   */
  @Get('effective')
  @Authenticated()
  @ApiOperation({
    summary: "A user's effective permission keys",
    description:
      'Exactly one of subject and user_id; at most one of project and project_id; group=projects for the grouped view (which takes no project). ' +
      "A person may read only their own permissions; administrators and machine clients anyone's. A disabled user gets empty sets. " +
      "Role keys are returned as granted: a role key counts only together with its product's sign-in key, which the product checks.",
  })
  @ApiQuery({ name: 'subject', required: false, type: String, description: 'The OIDC subject of the user.' })
  @ApiQuery({ name: 'user_id', required: false, schema: { type: 'string', format: 'uuid' }, description: 'The control plane id of the user.' })
  @ApiQuery({ name: 'project', required: false, type: String, description: 'A project slug: its keys are added to the workspace keys.' })
  @ApiQuery({ name: 'project_id', required: false, schema: { type: 'string', format: 'uuid' }, description: 'A project id: its keys are added to the workspace keys.' })
  @ApiQuery({ name: 'group', required: false, enum: ['projects'], description: 'projects selects the grouped view.' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag received before; 304 when the answer is unchanged.' })
  @ApiOkResponse({
    description: 'The single view, or with group=projects the grouped view.',
    schema: { oneOf: [{ $ref: getSchemaPath(SinglePermissionsResponse) }, { $ref: getSchemaPath(GroupedPermissionsResponse) }] },
    headers: {
      ETag: { description: 'A strong entity tag of the answer.', schema: { type: 'string' } },
      'Cache-Control': { description: CACHE_CONTROL, schema: { type: 'string' } },
    },
  })
  @ApiResponse({ status: 304, description: 'If-None-Match matches the current answer; no body.' })
  @ApiBadRequestResponse({ description: 'A bad combination or value of parameters (invalid_request, details.parameters names them).' })
  @ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
  @ApiForbiddenResponse({ description: "A person asking for someone else's permissions (forbidden)." })
  @ApiNotFoundResponse({ description: 'Unknown user or subject (user_not_found) or project (project_not_found).' })
  async effectivePermissions(@Query() query: Record<string, unknown>, @CurrentPrincipal() caller: Principal, @Req() request: Request, @Res() response: Response): Promise<void> {
    const answer = await this.effective.readAs(caller, parseEffectivePermissionsQuery(query));
    response.setHeader('ETag', answer.etag);
    response.setHeader('Cache-Control', CACHE_CONTROL);
    if (ifNoneMatchMatches(request.headers['if-none-match'], answer.etag)) {
      response.status(304).end();
      return;
    }
    response.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
    response.end(answer.body);
  }
}
