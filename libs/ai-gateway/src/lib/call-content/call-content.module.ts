import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { CallContent } from './call-content';
import { CallContentController } from './call-content.controller';

/** Calls' messages and answers in their records (general_settings.store_prompts_in_spend_logs), a stage of the call pipeline when on. */
@Module({
  imports: [CallsModule],
  controllers: [CallContentController],
  providers: [CallContent],
})
export class CallContentModule {}
