import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { SpendModule } from '../spend/spend.module';
import { KeyChangeBus } from './key-change-bus';
import { KeyLimiter } from './key-limiter';

/** A key's rate limits and budget (in process or in Redis), and the bus that tells every replica of a key's change. */
@Module({
  imports: [SpendModule, BudgetsModule],
  providers: [KeyChangeBus, KeyLimiter],
  exports: [KeyChangeBus, KeyLimiter],
})
export class LimitsModule {}
