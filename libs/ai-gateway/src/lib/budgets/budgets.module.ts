import { Module } from '@nestjs/common';
import { SpendModule } from '../spend/spend.module';
import { Budgets } from './budgets';

/** The budget levels above and beside the key, checked by CallAccounting on every route. */
@Module({
  imports: [SpendModule],
  providers: [Budgets],
  exports: [Budgets],
})
export class BudgetsModule {}
