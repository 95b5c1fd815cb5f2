import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { projectInQuery, RequirePermission } from '@arbor/contract';
import { UuidParam } from '@arbor/platform';
import { AI_GATEWAY, KeyProject, READERS } from '../admin/admin-access';
import { ProjectSpendQuery, SpendRangeQuery } from './spend-query.dto';
import { SpendReports } from './spend-report';
import { KeySpendReport, ProjectSpendReport } from './spend-report.response';

/**
 * Spend reports of the admin API, for the master key and for persons the control plane grants
 * ai-gateway.viewer or ai-gateway.operator on the project; errors in the platform envelope.
 */
@ApiTags('spend')
@ApiBearerAuth()
@Controller('api/v1')
export class SpendController {
  constructor(private readonly reports: SpendReports) {}

  @Get('keys/:id/spend')
  @ApiOkResponse({ type: KeySpendReport, description: "The key's spend in the range (UTC days, both ends included) and its budget as it stands." })
  @RequirePermission(AI_GATEWAY, READERS, { project: KeyProject })
  async forKey(@Param('id', new UuidParam('id')) id: string, @Query() query: SpendRangeQuery): Promise<KeySpendReport> {
    return this.reports.forKey(id, query.from, query.to);
  }

  @Get('spend')
  @ApiOkResponse({ type: ProjectSpendReport, description: "The project's spend in the range (UTC days, both ends included)." })
  @RequirePermission(AI_GATEWAY, READERS, { project: projectInQuery() })
  async forProject(@Query() query: ProjectSpendQuery): Promise<ProjectSpendReport> {
    return this.reports.forProject(query.project, query.from, query.to);
  }
}
