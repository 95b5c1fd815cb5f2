import { Module } from '@nestjs/common';
import { SpendModule } from '../spend/spend.module';
import { BudgetAlerts } from './budget-alerts';
import { BudgetLimits } from './budget-limits';
import { Budgets } from './budgets';

/** The budget levels above and beside the key, checked by CallAccounting on every route, and budget alerts. */
@Module({
  imports: [SpendModule],
  providers: [Budgets, BudgetAlerts, BudgetLimits],
  exports: [Budgets, BudgetAlerts, BudgetLimits],
})
export class BudgetsModule {}
