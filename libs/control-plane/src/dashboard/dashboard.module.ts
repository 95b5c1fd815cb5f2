import { Module } from '@nestjs/common';
import { PermissionsModule } from '../permissions/permissions.module';
import { DashboardSummaryController } from './dashboard-summary.controller';
import { DashboardSummaryService } from './dashboard-summary.service';

/** `GET /api/v1/dashboard/summary`: the control plane's own card on the suite dashboard. */
@Module({
  imports: [PermissionsModule],
  controllers: [DashboardSummaryController],
  providers: [DashboardSummaryService],
})
export class DashboardModule {}
