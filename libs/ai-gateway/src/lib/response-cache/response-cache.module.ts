import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { ResponseCache } from './response-cache';

/** LiteLLM's response cache, a stage of the call pipeline (it registers itself when the cache is on). */
@Module({
  imports: [CallsModule],
  providers: [ResponseCache],
})
export class ResponseCacheModule {}
