import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AdminOnly, Authenticated, CurrentPrincipal, Principal } from '@arbor/auth';
import { UpdateWorkspaceSettingsDto } from './dto/update-workspace-settings.dto';
import { WorkspaceSettingsResponse } from './dto/workspace-settings.response';
import { WorkspaceService } from './workspace.service';

@ApiTags('shell')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
@Controller('api/v1/workspace/settings')
export class WorkspaceController {
  constructor(private readonly workspace: WorkspaceService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: 'The workspace settings shared across the suite (any person or machine client)' })
  @ApiOkResponse({ type: WorkspaceSettingsResponse, description: 'Name and IANA time zone.' })
  async settings(): Promise<WorkspaceSettingsResponse> {
    return WorkspaceSettingsResponse.of(await this.workspace.settings());
  }

  @Put()
  @AdminOnly()
  @ApiOperation({ summary: 'Change the workspace name, time zone or locale (administrators; audited as workspace.updated)' })
  @ApiOkResponse({ type: WorkspaceSettingsResponse, description: 'The settings after the change.' })
  @ApiBadRequestResponse({ description: '`invalid_request` naming the field, e.g. a timezone that is not an IANA zone.' })
  @ApiForbiddenResponse({ description: 'The caller is not an administrator (machines included).' })
  async update(@CurrentPrincipal() principal: Principal, @Body() body: UpdateWorkspaceSettingsDto): Promise<WorkspaceSettingsResponse> {
    return WorkspaceSettingsResponse.of(await this.workspace.update(principal, { name: body.name, timezone: body.timezone, locale: body.locale }));
  }
}
