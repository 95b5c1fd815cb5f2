import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { projectInQuery, RequirePermission } from '@arbor/contract';
import { UuidParam } from '@arbor/platform';
import { AI_GATEWAY, KeyProject, READERS } from '../admin/admin-access';
import { ProjectSpendQuery, SpendRangeQuery } from './spend-query.dto';
import { KeySpendReport, ProjectSpendReport, SpendReports } from './spend-report';

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
  @RequirePermission(AI_GATEWAY, READERS, { project: KeyProject })
  async forKey(@Param('id', new UuidParam('id')) id: string, @Query() query: SpendRangeQuery): Promise<KeySpendReport> {
    return this.reports.forKey(id, query.from, query.to);
  }

  @Get('spend')
  @RequirePermission(AI_GATEWAY, READERS, { project: projectInQuery() })
  async forProject(@Query() query: ProjectSpendQuery): Promise<ProjectSpendReport> {
    return this.reports.forProject(query.project, query.from, query.to);
  }
}
