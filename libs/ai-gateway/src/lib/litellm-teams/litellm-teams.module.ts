import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { KeysModule } from '../keys/keys.module';
import { ProjectsModule } from '../projects/projects.module';
import { LiteLlmTeamsController } from './litellm-teams.controller';

/** LiteLLM's /team/*: a project's budget, onto budgets/BudgetLimits. */
@Module({
  imports: [BudgetsModule, KeysModule, ProjectsModule],
  controllers: [LiteLlmTeamsController],
})
export class LiteLlmTeamsModule {}
