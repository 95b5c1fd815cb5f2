import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { SpendModule } from '../spend/spend.module';
import { KeyChangeBus } from './key-change-bus';
import { KeyLimiter } from './key-limiter';
import { ProjectRates } from './project-rates';

/** A key's rate limits and budget (in process or in Redis), and the bus that tells every replica of a key's change. */
@Module({
  imports: [SpendModule, BudgetsModule],
  providers: [KeyChangeBus, KeyLimiter, ProjectRates],
  exports: [KeyChangeBus, KeyLimiter, ProjectRates],
})
export class LimitsModule {}
