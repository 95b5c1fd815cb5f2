import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Principal } from '@arbor/auth';
import { DashboardSummaryService } from './dashboard-summary.service';
import { DashboardSummaryResponse } from './dto/dashboard-summary.response';

@ApiTags('shell')
@ApiBearerAuth()
@Controller('api/v1/dashboard/summary')
export class DashboardSummaryController {
  constructor(private readonly dashboard: DashboardSummaryService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: "The control plane's card on the suite dashboard, for the signed-in person" })
  @ApiOkResponse({ type: DashboardSummaryResponse })
  @ApiUnauthorizedResponse({ description: 'No valid bearer token.' })
  @ApiForbiddenResponse({ description: '`person_only`: the summary is for a signed-in person.' })
  summary(@CurrentPrincipal() principal: Principal): Promise<DashboardSummaryResponse> {
    return this.dashboard.summary(principal);
  }
}
