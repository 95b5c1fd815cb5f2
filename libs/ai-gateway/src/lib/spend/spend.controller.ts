import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { UuidParam } from '@arbor/platform';
import { AdminAccess, AdminCaller, AdminGuard, CurrentAdmin } from '../admin/admin-access';
import { KeysService } from '../keys/keys.service';
import { ProjectSpendQuery, SpendRangeQuery } from './spend-query.dto';
import { KeySpendReport, ProjectSpendReport, SpendReports } from './spend-report';

/**
 * Spend reports of the admin API, for the master key and for operators of the project
 * (ai-gateway.operator); errors in the platform envelope.
 */
@ApiTags('spend')
@ApiBearerAuth()
@Controller('api/v1')
@UseGuards(AdminGuard)
export class SpendController {
  constructor(
    private readonly reports: SpendReports,
    private readonly keys: KeysService,
    private readonly access: AdminAccess,
  ) {}

  @Get('keys/:id/spend')
  async forKey(@CurrentAdmin() caller: AdminCaller, @Param('id', new UuidParam('id')) id: string, @Query() query: SpendRangeQuery): Promise<KeySpendReport> {
    await this.access.assertOperator(caller, (await this.keys.get(id)).project);
    return this.reports.forKey(id, query.from, query.to);
  }

  @Get('spend')
  async forProject(@CurrentAdmin() caller: AdminCaller, @Query() query: ProjectSpendQuery): Promise<ProjectSpendReport> {
    await this.access.assertOperator(caller, query.project);
    return this.reports.forProject(query.project, query.from, query.to);
  }
}
