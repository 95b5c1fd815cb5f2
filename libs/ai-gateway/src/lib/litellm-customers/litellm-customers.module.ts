import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { LiteLlmCustomersController } from './litellm-customers.controller';

/** LiteLLM's /customer/*: end users' budgets and blocks, onto budgets/BudgetLimits. */
@Module({
  imports: [BudgetsModule],
  controllers: [LiteLlmCustomersController],
})
export class LiteLlmCustomersModule {}
