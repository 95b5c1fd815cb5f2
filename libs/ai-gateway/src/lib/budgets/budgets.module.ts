import { Module } from '@nestjs/common';
import { SpendModule } from '../spend/spend.module';
import { BudgetAlerts } from './budget-alerts';
import { BudgetLimits } from './budget-limits';
import { Budgets } from './budgets';
import { WorstCaseCost } from './worst-case-cost';

/** The budget levels above and beside the key, checked by CallAccounting on every route, and budget alerts. */
@Module({
  imports: [SpendModule],
  providers: [Budgets, BudgetAlerts, BudgetLimits, WorstCaseCost],
  exports: [Budgets, BudgetAlerts, BudgetLimits, WorstCaseCost],
})
export class BudgetsModule {}
