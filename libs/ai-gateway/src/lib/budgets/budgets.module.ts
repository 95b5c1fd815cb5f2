import { Module } from '@nestjs/common';
import { SpendModule } from '../spend/spend.module';
import { BudgetAlerts } from './budget-alerts';
import { Budgets } from './budgets';

/** The budget levels above and beside the key, checked by CallAccounting on every route, and budget alerts. */
@Module({
  imports: [SpendModule],
  providers: [Budgets, BudgetAlerts],
  exports: [Budgets, BudgetAlerts],
})
export class BudgetsModule {}
