import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Principal } from '@arbor/auth';
import { MeResponse, MyProjectListResponse } from './dto/me.response';
import { UpdateDefaultProjectDto } from './dto/update-default-project.dto';
import { UpdateThemeDto } from './dto/update-theme.dto';
import { MeService } from './me.service';

@ApiTags('shell')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
@Authenticated()
@Controller('api/v1/me')
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get()
  @ApiOperation({ summary: 'The signed-in person: profile, admin flag, permissions, theme, default project (provisioned on first call)' })
  @ApiOkResponse({ type: MeResponse, description: 'Also for a disabled person, with `disabled: true` and no permissions.' })
  @ApiForbiddenResponse({ description: '`person_only`: machine clients have no profile.' })
  profile(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    return this.me.profile(principal);
  }

  @Get('projects')
  @ApiOperation({ summary: 'The projects the signed-in person may see (administrators and holders of a workspace-level role key: every project), for project switchers' })
  @ApiOkResponse({ type: MyProjectListResponse, description: 'Empty for a disabled person.' })
  @ApiForbiddenResponse({ description: '`person_only`: machine clients have no profile.' })
  async projects(@CurrentPrincipal() principal: Principal): Promise<MyProjectListResponse> {
    return { projects: await this.me.projects(principal) };
  }

  @Put('theme')
  @ApiOperation({ summary: 'Set the theme shared by every product UI' })
  @ApiOkResponse({ type: MeResponse, description: 'The profile with the new theme.' })
  @ApiBadRequestResponse({ description: '`invalid_request`: theme is not light, dark or system.' })
  @ApiForbiddenResponse({ description: '`person_only` for machine clients; `user_disabled` for a disabled person.' })
  setTheme(@CurrentPrincipal() principal: Principal, @Body() body: UpdateThemeDto): Promise<MeResponse> {
    return this.me.setTheme(principal, body.theme);
  }

  @Put('default-project')
  @ApiOperation({ summary: 'Select the default project shared by every product UI (null clears it)' })
  @ApiOkResponse({ type: MeResponse, description: 'The profile with the new default project.' })
  @ApiBadRequestResponse({ description: '`invalid_request`: project_id is missing or not a UUID.' })
  @ApiForbiddenResponse({
    description: '`project_not_visible`: the person holds no permission on it and no workspace-level role key; `person_only` for machines; `user_disabled` for a disabled person.',
  })
  @ApiNotFoundResponse({ description: '`project_not_found`.' })
  setDefaultProject(@CurrentPrincipal() principal: Principal, @Body() body: UpdateDefaultProjectDto): Promise<MeResponse> {
    return this.me.setDefaultProject(principal, body.project_id);
  }
}
