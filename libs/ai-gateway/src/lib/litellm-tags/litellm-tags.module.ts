import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { SpendModule } from '../spend/spend.module';
import { LiteLlmTagsController } from './litellm-tags.controller';

/** LiteLLM's /tag/* (tag budgets, onto budgets/BudgetLimits) and /spend/tags. */
@Module({
  imports: [BudgetsModule, SpendModule],
  controllers: [LiteLlmTagsController],
})
export class LiteLlmTagsModule {}
