import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { LimitsModule } from '../limits/limits.module';
import { SpendModule } from '../spend/spend.module';
import { CallAccounting } from './call-accounting';
import { CallPipeline } from './call-pipeline';
import { CallStages } from './call-stage';
import { NotServedRoutesController } from './not-served-routes.controller';
import { GatewayMetrics } from './gateway-metrics';

/** The call pipeline, the stages that register on it, and what every call settles (limits, budgets, spend, metrics). */
@Module({
  imports: [BudgetsModule, LimitsModule, SpendModule],
  controllers: [NotServedRoutesController],
  providers: [CallAccounting, GatewayMetrics, CallStages, CallPipeline],
  exports: [CallAccounting, GatewayMetrics, CallStages, CallPipeline],
})
export class CallsModule {}
