import { Module } from '@nestjs/common';
import { CallsModule } from '../calls/calls.module';
import { Guardrails } from './guardrails';

/** The config's guardrails, a stage of the call pipeline (it registers itself when the config names any). */
@Module({
  imports: [CallsModule],
  providers: [Guardrails],
})
export class GuardrailsModule {}
