import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { KeysModule } from '../keys/keys.module';
import { LiteLlmUsersController } from './litellm-users.controller';

/** LiteLLM's /user/info: a person's keys and budgets in projects. */
@Module({
  imports: [BudgetsModule, KeysModule],
  controllers: [LiteLlmUsersController],
})
export class LiteLlmUsersModule {}
