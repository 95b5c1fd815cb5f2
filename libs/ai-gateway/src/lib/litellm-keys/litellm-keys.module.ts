import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { SpendModule } from '../spend/spend.module';
import { LiteLlmKeysController } from './litellm-keys.controller';
import { LiteLlmSpendLogs } from './litellm-spend-logs';

/** LiteLLM's /key/* and /spend/logs, translated onto the key API and spend. */
@Module({
  imports: [KeysModule, SpendModule],
  controllers: [LiteLlmKeysController],
  providers: [LiteLlmSpendLogs],
})
export class LiteLlmKeysModule {}
